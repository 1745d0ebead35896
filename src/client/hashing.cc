#include "client/hashing.h"

#include "base/murmur3.h"

#include <limits>

namespace magnetar::client_detail {

// One implementation for the SDK and the broker (Key_Shared's sticky key hash).
std::uint32_t murmur3_32(std::string_view bytes) { return base::murmur3_32(bytes); }

std::uint32_t java_string_hash(std::string_view bytes) {
  std::uint32_t h = 0;
  for (const char c : bytes)
    h = 31 * h + static_cast<std::uint32_t>(static_cast<std::int32_t>(static_cast<signed char>(c)));
  return h;
}

std::int32_t key_hash(hashing_scheme scheme, std::string_view key) {
  const std::uint32_t h = scheme == hashing_scheme::java_string_hash ? java_string_hash(key) : murmur3_32(key);
  return static_cast<std::int32_t>(h & static_cast<std::uint32_t>(std::numeric_limits<std::int32_t>::max()));
}

}  // namespace magnetar::client_detail
