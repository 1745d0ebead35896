#include "magnetar/st/message_id.h"

#include "magnetar/errc.h"

#include <fmt/format.h>

#include <optional>

namespace magnetar::st {

namespace {

void put_i64(std::string& out, std::int64_t v) {
  const auto u = static_cast<std::uint64_t>(v);
  for (int shift = 56; shift >= 0; shift -= 8) out.push_back(static_cast<char>((u >> shift) & 0xFF));
}

void put_i32(std::string& out, std::int32_t v) {
  const auto u = static_cast<std::uint32_t>(v);
  for (int shift = 24; shift >= 0; shift -= 8) out.push_back(static_cast<char>((u >> shift) & 0xFF));
}

void put_bytes(std::string& out, std::string_view bytes) {
  put_i32(out, static_cast<std::int32_t>(bytes.size()));
  out.append(bytes);
}

// Reads the big-endian form; every read fails once the input runs short.
class reader {
 public:
  explicit reader(std::string_view in) : _in(in) {}
  bool at_end() const { return _in.empty(); }

  std::optional<std::int64_t> i64() {
    if (_in.size() < 8) return std::nullopt;
    std::uint64_t u = 0;
    for (int i = 0; i < 8; ++i) u = (u << 8) | static_cast<std::uint8_t>(_in[static_cast<std::size_t>(i)]);
    _in.remove_prefix(8);
    return static_cast<std::int64_t>(u);
  }
  std::optional<std::int32_t> i32() {
    if (_in.size() < 4) return std::nullopt;
    std::uint32_t u = 0;
    for (int i = 0; i < 4; ++i) u = (u << 8) | static_cast<std::uint8_t>(_in[static_cast<std::size_t>(i)]);
    _in.remove_prefix(4);
    return static_cast<std::int32_t>(u);
  }
  // A length-prefixed byte string; -1 (absent) gives nullopt in `absent`.
  std::optional<std::string_view> bytes(bool* absent = nullptr) {
    auto n = i32();
    if (!n) return std::nullopt;
    if (*n < 0) {
      if (absent == nullptr) return std::nullopt;
      *absent = true;
      return std::string_view();
    }
    if (_in.size() < static_cast<std::size_t>(*n)) return std::nullopt;
    auto out = _in.substr(0, static_cast<std::size_t>(*n));
    _in.remove_prefix(static_cast<std::size_t>(*n));
    return out;
  }

 private:
  std::string_view _in;
};

auto malformed(std::string_view what) {
  return fail(client_errc::invalid_argument,
              fmt::format("bytes are not a serialized scalable-topic message id: {}", what));
}

}  // namespace

message_id::message_id(std::int64_t segment_id, magnetar::message_id id,
                       std::shared_ptr<const position_vector> positions)
    : _empty(false), _segment_id(segment_id), _id(std::move(id)), _positions(std::move(positions)) {}

message_id message_id::earliest() { return {-1, magnetar::message_id::earliest()}; }
message_id message_id::latest() { return {-1, magnetar::message_id::latest()}; }

const position_vector& message_id::positions() const {
  static const position_vector none;
  return _positions ? *_positions : none;
}

const std::string& message_id::topic_name() const {
  static const std::string none;
  return _topic ? *_topic : none;
}

void message_id::set_topic_name(std::string topic) { _topic = std::make_shared<const std::string>(std::move(topic)); }

std::string message_id::serialize() const {
  std::string out;
  put_i64(out, _segment_id);
  put_bytes(out, _empty ? std::string() : _id.serialize());
  const auto& vector = positions();
  put_i32(out, static_cast<std::int32_t>(vector.size()));
  for (const auto& [segment, id] : vector) {
    put_i64(out, segment);
    put_bytes(out, id.serialize());
  }
  if (_topic) {
    put_bytes(out, *_topic);
  } else {
    put_i32(out, -1);
  }
  put_i32(out, -1);
  return out;
}

result<message_id> message_id::deserialize(std::string_view bytes) {
  reader in(bytes);
  auto segment = in.i64();
  if (!segment) return malformed("no segment id");
  auto classic_bytes = in.bytes();
  if (!classic_bytes) return malformed("no segment message id");
  if (classic_bytes->empty()) return message_id();
  MAGNETAR_TRY(classic, magnetar::message_id::deserialize(*classic_bytes));
  message_id out(*segment, std::move(classic));
  if (in.at_end()) return out;

  auto count = in.i32();
  if (!count || *count < 0) return malformed("bad position vector size");
  auto vector = std::make_shared<position_vector>();
  for (std::int32_t i = 0; i < *count; ++i) {
    auto seg = in.i64();
    auto id_bytes = in.bytes();
    if (!seg || !id_bytes) return malformed("position vector cut short");
    MAGNETAR_TRY(id, magnetar::message_id::deserialize(*id_bytes));
    (*vector)[*seg] = std::move(id);
  }
  if (!vector->empty()) out._positions = std::move(vector);
  if (in.at_end()) return out;

  bool absent = false;
  auto topic = in.bytes(&absent);
  if (!topic) return malformed("topic name cut short");
  if (!absent) out.set_topic_name(std::string(*topic));
  // What follows (the multi-topic vector) is not used by this client.
  return out;
}

std::string message_id::to_string() const {
  if (_empty) return "empty";
  return fmt::format("{}:{}", _segment_id, _id.to_string());
}

std::ostream& operator<<(std::ostream& out, const message_id& id) { return out << id.to_string(); }

}  // namespace magnetar::st
