// message_data: the shared, immutable body behind magnetar::message, and the factory
// the producer and consumer use to make messages from it.
//
// Built once (by message_builder or by the consumer from a received entry), then only
// read, from any thread; a message holds it by shared_ptr<const>.
#pragma once

#include "magnetar/message.h"
#include "wire/shared_bytes.h"

#include <cstdint>
#include <memory>
#include <optional>
#include <string>

namespace magnetar::client_detail {

struct message_data {
  wire::shared_bytes payload;
  std::optional<std::string> key;
  std::optional<std::string> ordering_key;
  message_properties properties;
  std::uint64_t event_time = 0;
  std::optional<std::uint64_t> sequence_id;
  // Delayed delivery: not before this time (milliseconds since the epoch).
  std::optional<std::uint64_t> deliver_at_time;

  // Received messages only.
  message_id id;
  std::uint64_t publish_time = 0;
  std::uint32_t redelivery_count = 0;
  std::string producer_name;
  // The topic is the id's (topic_name()): shared by every message of a consumer, not a
  // copy each.

  static message make(std::shared_ptr<const message_data> data) { return message(std::move(data)); }
  static const message_data& of(const message& m) { return *m._data; }
  static std::shared_ptr<const message_data> share(const message& m) { return m._data; }
};

// Stamps received ids with their topic without copying its name per message.
struct message_id_access {
  static message_id with_topic(message_id id, std::shared_ptr<const std::string> topic) {
    id._topic = std::move(topic);
    return id;
  }
};

}  // namespace magnetar::client_detail
