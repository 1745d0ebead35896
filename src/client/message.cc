#include "client/message_data.h"

#include <cstring>

namespace magnetar {

using client_detail::message_data;

namespace {
const std::shared_ptr<const message_data>& empty_data() {
  static const auto empty = std::make_shared<const message_data>();
  return empty;
}
const std::string& empty_string() {
  static const std::string empty;
  return empty;
}
}  // namespace

message::message() : _data(empty_data()) {}

std::string_view message::payload() const { return _data->payload.as_chars(); }
std::span<const std::byte> message::payload_bytes() const { return _data->payload.span(); }
bool message::has_key() const { return _data->key.has_value(); }
const std::string& message::key() const { return _data->key ? *_data->key : empty_string(); }
bool message::has_ordering_key() const { return _data->ordering_key.has_value(); }
const std::string& message::ordering_key() const { return _data->ordering_key ? *_data->ordering_key : empty_string(); }
const message_properties& message::properties() const { return _data->properties; }
std::uint64_t message::event_time() const { return _data->event_time; }
std::optional<std::uint64_t> message::sequence_id() const { return _data->sequence_id; }
const message_id& message::id() const { return _data->id; }
std::uint64_t message::publish_time() const { return _data->publish_time; }
std::uint32_t message::redelivery_count() const { return _data->redelivery_count; }
const std::string& message::producer_name() const { return _data->producer_name; }
const std::string& message::topic() const { return _data->id.topic_name(); }

// The message's data is made at the builder's first setter, not up front: a builder
// used once (the common way) would otherwise make a second one at build() for nothing.
message_builder::message_builder() = default;

message_data& message_builder::data() {
  if (!_data) _data = std::make_shared<message_data>();
  return *_data;
}
message_builder::~message_builder() = default;
message_builder::message_builder(message_builder&&) noexcept = default;
message_builder& message_builder::operator=(message_builder&&) noexcept = default;

message_builder& message_builder::payload(std::string_view bytes) {
  return payload(std::as_bytes(std::span<const char>(bytes.data(), bytes.size())));
}
message_builder& message_builder::payload(std::span<const std::byte> bytes) {
  data().payload = wire::shared_bytes::copy_of(bytes);
  return *this;
}
message_builder& message_builder::payload(std::string&& bytes) {
  // The string moves into the buffer's owner, so its bytes are not copied again.
  auto owner = std::make_shared<const std::string>(std::move(bytes));
  auto span = std::as_bytes(std::span<const char>(owner->data(), owner->size()));
  data().payload = wire::shared_bytes(owner, span);
  return *this;
}
message_builder& message_builder::key(std::string key) {
  data().key = std::move(key);
  return *this;
}
message_builder& message_builder::ordering_key(std::string key) {
  data().ordering_key = std::move(key);
  return *this;
}
message_builder& message_builder::property(std::string name, std::string value) {
  data().properties[std::move(name)] = std::move(value);
  return *this;
}
message_builder& message_builder::properties(message_properties properties) {
  data().properties = std::move(properties);
  return *this;
}
message_builder& message_builder::event_time(std::uint64_t millis_since_epoch) {
  data().event_time = millis_since_epoch;
  return *this;
}
message_builder& message_builder::sequence_id(std::uint64_t id) {
  data().sequence_id = id;
  return *this;
}

message_builder& message_builder::deliver_at(std::uint64_t millis_since_epoch) {
  data().deliver_at_time = millis_since_epoch;
  return *this;
}
message_builder& message_builder::deliver_after(std::chrono::milliseconds delay) {
  const auto now =
      std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::system_clock::now().time_since_epoch());
  return deliver_at(static_cast<std::uint64_t>((now + delay).count()));
}

message message_builder::build() {
  data();  // a message with nothing set is a message all the same
  return message_data::make(std::exchange(_data, nullptr));
}

}  // namespace magnetar
