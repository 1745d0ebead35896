#include "io/frame_reader.h"

#include <fmt/format.h>

#include <cstring>
#include <system_error>

namespace magnetar::io {

awaitable<result<std::string_view>> frame_reader::next(asio::ip::tcp::socket& socket) {
  for (;;) {
    const std::size_t available = _end - _begin;
    std::size_t needed = 4;
    if (available >= 4) {
      const auto* p = reinterpret_cast<const unsigned char*>(_buffer.data() + _begin);
      const std::size_t length =
          (std::size_t{p[0]} << 24) | (std::size_t{p[1]} << 16) | (std::size_t{p[2]} << 8) | std::size_t{p[3]};
      if (length > _max) {
        co_return fail(std::make_error_code(std::errc::message_size),
                       fmt::format("a frame of {} bytes is larger than the limit ({} bytes)", length, _max));
      }
      if (available >= 4 + length) {
        std::string_view body(_buffer.data() + _begin + 4, length);
        _begin += 4 + length;
        co_return body;
      }
      needed = 4 + length;
    }
    // Room for the rest of this frame: move what is unread to the front, and
    // grow only for a frame larger than the buffer.
    if (_begin > 0) {
      std::memmove(_buffer.data(), _buffer.data() + _begin, available);
      _begin = 0;
      _end = available;
    }
    if (_buffer.size() < needed) _buffer.resize(needed);
    boost::system::error_code ec;
    const auto n = co_await socket.async_read_some(asio::buffer(_buffer.data() + _end, _buffer.size() - _end),
                                                   asio::redirect_error(asio::use_awaitable, ec));
    if (ec) co_return fail(ec, "reading a frame");
    _end += n;
  }
}

}  // namespace magnetar::io
