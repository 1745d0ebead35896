#include "io/frame_reader.h"

#include <fmt/format.h>

#include <cstring>
#include <system_error>

namespace magnetar::io {

std::optional<result<std::string_view>> frame_reader::take() {
  const std::size_t available = _end - _begin;
  _needed = 4;
  if (available < 4) return std::nullopt;
  const auto* p = reinterpret_cast<const unsigned char*>(_buffer.data() + _begin);
  const std::size_t length =
      (std::size_t{p[0]} << 24) | (std::size_t{p[1]} << 16) | (std::size_t{p[2]} << 8) | std::size_t{p[3]};
  if (length > _max) {
    return fail(std::make_error_code(std::errc::message_size),
                fmt::format("a frame of {} bytes is larger than the limit ({} bytes)", length, _max));
  }
  if (available >= 4 + length) {
    std::string_view body(_buffer.data() + _begin + 4, length);
    _begin += 4 + length;
    return body;
  }
  _needed = 4 + length;
  return std::nullopt;
}

asio::mutable_buffer frame_reader::room() {
  // Move what is unread to the front, and grow only for a frame larger than the buffer.
  const std::size_t available = _end - _begin;
  if (_begin > 0) {
    std::memmove(_buffer.data(), _buffer.data() + _begin, available);
    _begin = 0;
    _end = available;
  }
  if (_buffer.size() < _needed) _buffer.resize(_needed);
  return asio::buffer(_buffer.data() + _end, _buffer.size() - _end);
}

}  // namespace magnetar::io
