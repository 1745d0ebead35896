// st::message: a message received from a scalable topic.
//
// The segment's message (magnetar::message, its topic the segment:// one) plus the
// st::message_id that names the segment, and the scalable topic (topic://...) as
// topic(). Messages to send are built with magnetar::message_builder as for classic
// topics. An immutable value; cheap to copy, readable from any thread.
#pragma once

#include "magnetar/message.h"
#include "magnetar/st/message_id.h"

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>

namespace magnetar::st {

class message {
 public:
  message() = default;
  message(magnetar::message segment_message, message_id id, std::shared_ptr<const std::string> topic)
      : _message(std::move(segment_message)), _id(std::move(id)), _topic(std::move(topic)) {}

  std::string_view payload() const { return _message.payload(); }
  std::size_t size() const { return _message.size(); }
  bool has_key() const { return _message.has_key(); }
  const std::string& key() const { return _message.key(); }
  bool has_ordering_key() const { return _message.has_ordering_key(); }
  const std::string& ordering_key() const { return _message.ordering_key(); }
  const message_properties& properties() const { return _message.properties(); }
  std::uint64_t event_time() const { return _message.event_time(); }
  std::optional<std::uint64_t> sequence_id() const { return _message.sequence_id(); }
  std::uint64_t publish_time() const { return _message.publish_time(); }
  std::uint32_t redelivery_count() const { return _message.redelivery_count(); }
  const std::string& producer_name() const { return _message.producer_name(); }

  const message_id& id() const { return _id; }
  // The scalable topic, topic://t/n/x.
  const std::string& topic() const {
    static const std::string none;
    return _topic ? *_topic : none;
  }
  // The message as stored on its segment (its topic() is the segment:// topic).
  const magnetar::message& segment_message() const { return _message; }

 private:
  magnetar::message _message;
  message_id _id;
  std::shared_ptr<const std::string> _topic;
};

}  // namespace magnetar::st
