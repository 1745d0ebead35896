// frame_decoder: cuts the byte stream of one connection into frames.
//
// Bytes go in as they arrive, either read straight into prepare() and commit()ed (no
// copy) or copied in with feed(); next() then hands out each complete frame in order.
//
// Errors from next() come in two kinds:
// - The frame's own size is beyond max_frame_size (frame_too_large) or too small to hold
//   a command size (malformed_frame): the stream has lost its framing. The decoder stays
//   failed, returning that error from every later next(); answer and close.
// - Anything else concerns one frame whose bounds are known: that frame is dropped and
//   next() goes on with the one after it, so the connection can answer and keep serving.
//
// Memory: a frame that fills at least half of the read block shares it (big payloads are
// not copied); a smaller one gets an exact-size copy, so that a small entry kept in a
// cache doesn't pin a whole block.
//
// One decoder per connection, used on that connection's shard; not thread-safe.
#pragma once

#include "base/result.h"
#include "wire/frame.h"

#include <cstddef>
#include <memory>
#include <optional>
#include <span>

namespace magnetar::wire {

class frame_decoder {
 public:
  // Read blocks are this big unless a frame needs more.
  static constexpr std::size_t block_size = 64 * 1024;

  explicit frame_decoder(std::size_t max_frame_size = default_max_frame_size);

  // Room to read into: at least `at_least` bytes, and at least the rest of a frame whose
  // size is already known, so a socket can read it whole. Valid until the next call
  // to any member.
  std::span<std::byte> prepare(std::size_t at_least = 1);
  // `count` bytes were written at the start of what prepare() returned.
  void commit(std::size_t count);
  // Copies `bytes` in.
  void feed(std::span<const std::byte> bytes);

  // The next complete frame, nullopt until more bytes arrive, or an error (see above).
  result<std::optional<frame>> next();

  // Bytes received and not yet returned as frames.
  std::size_t buffered() const { return _end - _begin; }
  std::size_t max_frame_size() const { return _max_frame_size; }
  // A new limit for the frames not yet returned (a connection raises it once the peer
  // has authenticated).
  void set_max_frame_size(std::size_t bytes) { _max_frame_size = bytes; }
  bool failed() const { return _failure.has_value(); }

 private:
  // Makes room for `room` more bytes after the buffered ones.
  void reserve(std::size_t room);
  // The declared size of the first buffered frame, counting its size field.
  std::optional<std::size_t> first_frame_length() const;

  std::size_t _max_frame_size;
  std::shared_ptr<std::byte[]> _block;
  std::size_t _capacity = 0;
  std::size_t _begin = 0;  // the first byte not yet returned
  std::size_t _end = 0;    // one past the last byte received
  std::optional<error> _failure;
};

}  // namespace magnetar::wire
