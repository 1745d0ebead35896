#include "wire/frame_decoder.h"

#include "base/assert.h"
#include "wire/big_endian.h"
#include "wire/errc.h"

#include <fmt/format.h>

#include <algorithm>
#include <cstring>

namespace magnetar::wire {
namespace {

constexpr std::size_t size_field = 4;

// Moving a frame moves two protobuf messages, which costs a good part of parsing them, so
// the frame is built where the caller receives it: in place, and returned by name from
// the only return statement.
result<std::optional<frame>> decode_in_place(shared_bytes bytes) {
  result<std::optional<frame>> decoded(std::in_place_type<std::optional<frame>>, std::in_place);
  if (auto status = decode_frame(std::move(bytes), *decoded.value()); !status) decoded = fail(status.error());
  return decoded;
}

}  // namespace

frame_decoder::frame_decoder(std::size_t max_frame_size) : _max_frame_size(max_frame_size) {}

std::optional<std::size_t> frame_decoder::first_frame_length() const {
  if (buffered() < size_field) return std::nullopt;
  return size_field + load_be32(_block.get() + _begin);
}

void frame_decoder::reserve(std::size_t room) {
  if (_capacity - _end >= room) return;
  const std::size_t kept = buffered();
  const std::size_t needed = kept + room;
  // Frames handed out may still point into the block, so the buffered bytes move to the
  // front only when nothing else holds it.
  if (_block && _block.use_count() == 1 && _capacity >= needed) {
    std::memmove(_block.get(), _block.get() + _begin, kept);
  } else {
    const std::size_t capacity = std::max(block_size, needed);
    auto block = std::make_shared_for_overwrite<std::byte[]>(capacity);
    if (kept > 0) std::memcpy(block.get(), _block.get() + _begin, kept);
    _block = std::move(block);
    _capacity = capacity;
  }
  _begin = 0;
  _end = kept;
}

std::span<std::byte> frame_decoder::prepare(std::size_t at_least) {
  std::size_t room = std::max<std::size_t>(at_least, 1);
  // A frame too large for the limit is refused by next(); no room is made for it.
  if (const auto length = first_frame_length(); length && *length - size_field <= _max_frame_size) {
    room = std::max(room, *length > buffered() ? *length - buffered() : 0);
  }
  reserve(room);
  return {_block.get() + _end, _capacity - _end};
}

void frame_decoder::commit(std::size_t count) {
  MAGNETAR_ASSERT(count <= _capacity - _end, "commit of {} bytes into {} prepared", count, _capacity - _end);
  _end += count;
}

void frame_decoder::feed(std::span<const std::byte> bytes) {
  if (bytes.empty()) return;
  reserve(bytes.size());
  std::memcpy(_block.get() + _end, bytes.data(), bytes.size());
  _end += bytes.size();
}

result<std::optional<frame>> frame_decoder::next() {
  if (_failure) return fail(*_failure);
  const auto length = first_frame_length();
  if (!length) return std::optional<frame>();

  const std::size_t declared = *length - size_field;
  if (declared > _max_frame_size) {
    _failure = error(errc::frame_too_large,
                     fmt::format("frame declares {} bytes, the limit is {}", declared, _max_frame_size));
    return fail(*_failure);
  }
  if (declared < size_field) {
    _failure =
        error(errc::malformed_frame, fmt::format("frame declares {} bytes, too few for its command size", declared));
    return fail(*_failure);
  }
  if (buffered() < *length) return std::optional<frame>();

  const std::span<const std::byte> bytes(_block.get() + _begin, *length);
  shared_bytes owned = 2 * *length >= _capacity ? shared_bytes(_block, bytes) : shared_bytes::copy_of(bytes);
  _begin += *length;
  if (_begin == _end && _block.use_count() == 1) _begin = _end = 0;

  return decode_in_place(std::move(owned));
}

}  // namespace magnetar::wire
