#include "client/hashing.h"

#include <limits>

namespace magnetar::client_detail {

namespace {

constexpr std::uint32_t c1 = 0xcc9e2d51U;
constexpr std::uint32_t c2 = 0x1b873593U;

constexpr std::uint32_t rotate_left(std::uint32_t x, int r) { return (x << r) | (x >> (32 - r)); }

constexpr std::uint32_t mix_k1(std::uint32_t k1) { return rotate_left(k1 * c1, 15) * c2; }

constexpr std::uint32_t mix_h1(std::uint32_t h1, std::uint32_t k1) { return rotate_left(h1 ^ k1, 13) * 5 + 0xe6546b64U; }

constexpr std::uint32_t final_mix(std::uint32_t h) {
  h ^= h >> 16;
  h *= 0x85ebca6bU;
  h ^= h >> 13;
  h *= 0xc2b2ae35U;
  h ^= h >> 16;
  return h;
}

std::uint32_t byte_at(std::string_view s, std::size_t i) { return static_cast<unsigned char>(s[i]); }

}  // namespace

std::uint32_t murmur3_32(std::string_view bytes) {
  const std::size_t blocks = bytes.size() / 4;
  std::uint32_t h1 = 0;  // upstream's seed
  for (std::size_t b = 0; b < blocks; ++b) {
    const std::size_t i = b * 4;
    const std::uint32_t k1 = byte_at(bytes, i) | byte_at(bytes, i + 1) << 8 | byte_at(bytes, i + 2) << 16 |
                             byte_at(bytes, i + 3) << 24;
    h1 = mix_h1(h1, mix_k1(k1));
  }
  const std::size_t tail = blocks * 4;
  std::uint32_t k1 = 0;
  switch (bytes.size() - tail) {
    case 3: k1 ^= byte_at(bytes, tail + 2) << 16; [[fallthrough]];
    case 2: k1 ^= byte_at(bytes, tail + 1) << 8; [[fallthrough]];
    case 1: k1 ^= byte_at(bytes, tail);
  }
  h1 ^= mix_k1(k1);
  // The length is mixed in modulo 2^32, as upstream's int64 length converted to uint32.
  h1 ^= static_cast<std::uint32_t>(bytes.size());
  return final_mix(h1);
}

std::uint32_t java_string_hash(std::string_view bytes) {
  std::uint32_t h = 0;
  for (const char c : bytes) h = 31 * h + static_cast<std::uint32_t>(static_cast<std::int32_t>(static_cast<signed char>(c)));
  return h;
}

std::int32_t key_hash(hashing_scheme scheme, std::string_view key) {
  const std::uint32_t h = scheme == hashing_scheme::java_string_hash ? java_string_hash(key) : murmur3_32(key);
  return static_cast<std::int32_t>(h & static_cast<std::uint32_t>(std::numeric_limits<std::int32_t>::max()));
}

}  // namespace magnetar::client_detail
