// Big-endian (network order) loads and stores of the integers in Pulsar frames.
//
// Pointers need no alignment. Pure functions; thread-safe.
#pragma once

#include <cstddef>
#include <cstdint>

namespace magnetar::wire {

inline std::uint16_t load_be16(const std::byte* p) {
  return static_cast<std::uint16_t>((std::to_integer<std::uint16_t>(p[0]) << 8) | std::to_integer<std::uint16_t>(p[1]));
}

inline std::uint32_t load_be32(const std::byte* p) {
  return (std::to_integer<std::uint32_t>(p[0]) << 24) | (std::to_integer<std::uint32_t>(p[1]) << 16) |
         (std::to_integer<std::uint32_t>(p[2]) << 8) | std::to_integer<std::uint32_t>(p[3]);
}

inline void store_be16(std::byte* p, std::uint16_t v) {
  p[0] = static_cast<std::byte>(v >> 8);
  p[1] = static_cast<std::byte>(v);
}

inline void store_be32(std::byte* p, std::uint32_t v) {
  p[0] = static_cast<std::byte>(v >> 24);
  p[1] = static_cast<std::byte>(v >> 16);
  p[2] = static_cast<std::byte>(v >> 8);
  p[3] = static_cast<std::byte>(v);
}

}  // namespace magnetar::wire
