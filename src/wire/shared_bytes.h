// shared_bytes: a read-only slice of a reference-counted byte buffer.
//
// Copying one copies a pointer and bumps a count, never the bytes, so a decoded frame's
// payload can go to another shard, wait on a ledger write and sit in a cache without
// being copied. The bytes never change once shared, and the buffer lives as long as the
// last slice of it.
// Thread-safety: distinct copies may be used and dropped on different threads (the
// count is atomic); one object must not be assigned while another thread reads it.
#pragma once

#include "base/assert.h"

#include <algorithm>
#include <cstddef>
#include <memory>
#include <span>
#include <string_view>
#include <utility>

namespace magnetar::wire {

class shared_bytes {
 public:
  shared_bytes() = default;
  // `bytes` must lie inside what `owner` keeps alive.
  shared_bytes(std::shared_ptr<const void> owner, std::span<const std::byte> bytes)
      : _owner(std::move(owner)), _data(bytes.data()), _size(bytes.size()) {}

  // A new buffer holding a copy of `bytes`, sized exactly.
  static shared_bytes copy_of(std::span<const std::byte> bytes);

  const std::byte* data() const { return _data; }
  std::size_t size() const { return _size; }
  bool empty() const { return _size == 0; }
  std::span<const std::byte> span() const { return {_data, _size}; }
  operator std::span<const std::byte>() const { return span(); }
  std::string_view as_chars() const { return {reinterpret_cast<const char*>(_data), _size}; }

  // The bytes [offset, offset + count) of this slice, sharing its buffer.
  shared_bytes slice(std::size_t offset, std::size_t count) const {
    MAGNETAR_ASSERT(offset <= _size && count <= _size - offset, "slice [{}, +{}) of {} bytes", offset, count, _size);
    return shared_bytes(_owner, {_data + offset, count});
  }
  shared_bytes slice(std::size_t offset) const { return slice(offset, _size - offset); }

 private:
  std::shared_ptr<const void> _owner;
  const std::byte* _data = nullptr;
  std::size_t _size = 0;
};

inline shared_bytes shared_bytes::copy_of(std::span<const std::byte> bytes) {
  if (bytes.empty()) return {};
  std::shared_ptr<std::byte[]> buffer = std::make_shared_for_overwrite<std::byte[]>(bytes.size());
  std::copy(bytes.begin(), bytes.end(), buffer.get());
  const std::byte* data = buffer.get();
  return shared_bytes(std::move(buffer), {data, bytes.size()});
}

}  // namespace magnetar::wire
