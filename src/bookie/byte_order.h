// Big-endian loads and stores of the fixed-width integers in entry log records
// and entry index keys and values.
//
// Big-endian because index keys must sort as numbers (RocksDB compares bytes)
// and the log records then follow the same convention, as BookKeeper's do.
// Pointers need no alignment. Pure functions; thread-safe.
#pragma once

#include "wire/big_endian.h"

#include <cstddef>
#include <cstdint>

namespace magnetar::bookie {

inline std::uint64_t load_be64(const std::byte* p) {
  return (std::uint64_t{wire::load_be32(p)} << 32) | wire::load_be32(p + 4);
}

inline void store_be64(std::byte* p, std::uint64_t v) {
  wire::store_be32(p, static_cast<std::uint32_t>(v >> 32));
  wire::store_be32(p + 4, static_cast<std::uint32_t>(v));
}

using wire::load_be32;
using wire::store_be32;

}  // namespace magnetar::bookie
