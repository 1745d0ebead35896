// MurmurHash3, x86 32-bit variant: the hash Pulsar uses for keys (Key_Shared's sticky
// key hash, the Murmur3_32Hash partition routing scheme, scalable topics' segment ring).
// Its value must equal upstream's bit for bit, or keys land elsewhere than an upstream
// client or broker would put them. Pure function; thread-safe.
#pragma once

#include <cstdint>
#include <string_view>

namespace magnetar::base {

std::uint32_t murmur3_32(std::string_view data, std::uint32_t seed = 0) noexcept;

}  // namespace magnetar::base
