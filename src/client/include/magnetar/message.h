// message: what a producer sends and a consumer or reader receives.
//
// Build one with message_builder (payload, key, ordering key, properties, event time,
// and optionally a sequence id of your own). A received message also carries where it
// is stored (message_id), when the broker took it (publish_time), how often it was
// delivered before (redelivery_count), the producer's name and the topic.
// A message is an immutable value that shares its bytes: copying one is cheap, and
// copies may be read from any thread.
#pragma once

#include "magnetar/message_id.h"

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>

namespace magnetar {

namespace client_detail {
struct message_data;
}

using message_properties = std::map<std::string, std::string>;

class message {
 public:
  // An empty message (no payload, no key).
  message();

  std::string_view payload() const;
  std::span<const std::byte> payload_bytes() const;
  std::size_t size() const { return payload().size(); }

  // The partition key (routes Key_Shared and key-based batching); empty when none.
  bool has_key() const;
  const std::string& key() const;
  // Ordering key: when set, Key_Shared orders by it instead of the key.
  bool has_ordering_key() const;
  const std::string& ordering_key() const;
  const message_properties& properties() const;
  // Milliseconds since the epoch set by the application; 0 when unset.
  std::uint64_t event_time() const;
  // The sequence id: set by the application, or assigned by the producer on send.
  std::optional<std::uint64_t> sequence_id() const;

  // Set on received messages (defaults otherwise).
  const message_id& id() const;
  // Milliseconds since the epoch when the producer published it.
  std::uint64_t publish_time() const;
  std::uint32_t redelivery_count() const;
  const std::string& producer_name() const;
  // The topic it came from: the partition ("...-partition-<i>") on a partitioned topic.
  const std::string& topic() const;
  // upstream's name for topic().
  const std::string& topic_name() const { return topic(); }

 private:
  friend struct client_detail::message_data;
  explicit message(std::shared_ptr<const client_detail::message_data> data) : _data(std::move(data)) {}
  std::shared_ptr<const client_detail::message_data> _data;
};

class message_builder {
 public:
  message_builder();
  ~message_builder();
  message_builder(message_builder&&) noexcept;
  message_builder& operator=(message_builder&&) noexcept;

  message_builder& payload(std::string_view bytes);
  message_builder& payload(std::span<const std::byte> bytes);
  // Takes the string's buffer over instead of copying it.
  message_builder& payload(std::string&& bytes);
  message_builder& payload(const char* text) { return payload(std::string_view(text)); }
  message_builder& key(std::string key);
  message_builder& ordering_key(std::string key);
  message_builder& property(std::string name, std::string value);
  message_builder& properties(message_properties properties);
  message_builder& event_time(std::uint64_t millis_since_epoch);
  // Overrides the producer's automatic numbering (used for deduplication).
  message_builder& sequence_id(std::uint64_t id);
  // Delayed delivery: consumers of Shared and Key_Shared subscriptions get the message
  // at or after this time (milliseconds since the epoch), on brokers that implement it.
  // Such a message is never batched.
  message_builder& deliver_at(std::uint64_t millis_since_epoch);
  // The same, `delay` from now.
  message_builder& deliver_after(std::chrono::milliseconds delay);

  // The message; the builder is left empty and may be reused.
  message build();

 private:
  client_detail::message_data& data();

  std::shared_ptr<client_detail::message_data> _data;
};

}  // namespace magnetar
