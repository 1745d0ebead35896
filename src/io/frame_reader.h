// frame_reader: reads length-prefixed frames (a 4-byte big-endian length, then
// that many bytes) from a socket through one buffer, so that one recv brings
// in as many frames as have arrived: a pipelined peer costs a syscall per
// batch, not two per frame.
// Used by one coroutine at a time (the connection's read loop).
//
// append_frame_header: the writing side; appends a frame's length prefix to
// `out` and room for its body, and returns where the body goes.
#pragma once

#include "base/result.h"
#include "io/net.h"

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace magnetar::io {

inline char* append_frame_header(std::string& out, std::size_t body_size) {
  const auto at = out.size();
  out.resize(at + 4 + body_size);
  out[at] = static_cast<char>(body_size >> 24);
  out[at + 1] = static_cast<char>(body_size >> 16);
  out[at + 2] = static_cast<char>(body_size >> 8);
  out[at + 3] = static_cast<char>(body_size);
  return out.data() + at + 4;
}

class frame_reader {
 public:
  explicit frame_reader(std::size_t max_frame_bytes, std::size_t buffer_bytes = 64 * 1024)
      : _max(max_frame_bytes), _buffer(buffer_bytes) {}

  // The next frame's body, valid until the next call. Fails with the stream's
  // error (asio::error::eof when the peer closed between frames), or with
  // std::errc::message_size naming the length when a frame is past the limit
  // (its body is not read). `Stream`: a TCP socket, or a TLS stream over one.
  template <typename Stream>
  awaitable<result<std::string_view>> next(Stream& stream) {
    for (;;) {
      if (auto ready = take()) co_return std::move(*ready);
      boost::system::error_code ec;
      const auto n = co_await stream.async_read_some(room(), asio::redirect_error(asio::use_awaitable, ec));
      if (ec) co_return fail(ec, "reading a frame");
      _end += n;
    }
  }

 private:
  // A whole frame from the buffer (or the error of one past the limit); nullopt
  // when more bytes must come first.
  std::optional<result<std::string_view>> take();
  // Where the next read goes: room for at least the rest of the frame begun.
  asio::mutable_buffer room();

  std::size_t _max;
  std::vector<char> _buffer;
  std::size_t _begin = 0;   // the first unread byte
  std::size_t _end = 0;     // one past the last received byte
  std::size_t _needed = 4;  // bytes the frame begun needs in the buffer, from _begin
};

}  // namespace magnetar::io
