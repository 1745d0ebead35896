// aligned_buffer: memory at an address aligned for direct I/O (file::write_direct_at),
// grown on demand and then kept, so that a writer fills the same warm pages again
// rather than the kernel's or the allocator's fresh ones.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdlib>
#include <memory>
#include <new>
#include <span>

namespace magnetar::io {

// The alignment of file::write_direct_at's offsets, sizes and memory: the page, which
// is a multiple of every logical block size that Linux disks have.
inline constexpr std::size_t direct_io_alignment = 4096;

class aligned_buffer {
 public:
  // The first `size` bytes, at least; what they held is kept only up to the old size.
  std::span<std::byte> ensure(std::size_t size) {
    if (size > _capacity) {
      const auto capacity = (size + direct_io_alignment - 1) / direct_io_alignment * direct_io_alignment;
      auto* grown = static_cast<std::byte*>(std::aligned_alloc(direct_io_alignment, capacity));
      if (grown == nullptr) throw std::bad_alloc();
      if (_capacity > 0) std::copy_n(_bytes.get(), _capacity, grown);
      _bytes.reset(grown);
      _capacity = capacity;
    }
    return {_bytes.get(), size};
  }
  std::size_t capacity() const { return _capacity; }

 private:
  struct free_memory {
    void operator()(std::byte* p) const { std::free(p); }
  };
  std::unique_ptr<std::byte, free_memory> _bytes;
  std::size_t _capacity = 0;
};

}  // namespace magnetar::io
