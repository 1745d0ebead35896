#include "base/murmur3.h"

namespace magnetar::base {

namespace {

constexpr std::uint32_t c1 = 0xcc9e2d51;
constexpr std::uint32_t c2 = 0x1b873593;

constexpr std::uint32_t rotl(std::uint32_t x, int r) { return (x << r) | (x >> (32 - r)); }

constexpr std::uint32_t mix_block(std::uint32_t k) { return rotl(k * c1, 15) * c2; }

// Blocks are read little-endian whatever the host, as the reference implementations do
// on the machines Pulsar runs on.
std::uint32_t load_le32(const unsigned char* p) {
  return static_cast<std::uint32_t>(p[0]) | static_cast<std::uint32_t>(p[1]) << 8 |
         static_cast<std::uint32_t>(p[2]) << 16 | static_cast<std::uint32_t>(p[3]) << 24;
}

}  // namespace

std::uint32_t murmur3_32(std::string_view data, std::uint32_t seed) noexcept {
  const auto* bytes = reinterpret_cast<const unsigned char*>(data.data());
  const std::size_t blocks = data.size() / 4;
  std::uint32_t h = seed;
  for (std::size_t i = 0; i < blocks; ++i) {
    h ^= mix_block(load_le32(bytes + i * 4));
    h = rotl(h, 13) * 5 + 0xe6546b64;
  }
  const unsigned char* tail = bytes + blocks * 4;
  std::uint32_t k = 0;
  switch (data.size() & 3) {
    case 3: k ^= static_cast<std::uint32_t>(tail[2]) << 16; [[fallthrough]];
    case 2: k ^= static_cast<std::uint32_t>(tail[1]) << 8; [[fallthrough]];
    case 1: k ^= tail[0]; h ^= mix_block(k);
  }
  h ^= static_cast<std::uint32_t>(data.size());
  h ^= h >> 16;
  h *= 0x85ebca6b;
  h ^= h >> 13;
  h *= 0xc2b2ae35;
  h ^= h >> 16;
  return h;
}

}  // namespace magnetar::base
