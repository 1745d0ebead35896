// hashing: the key hashes a partitioned producer routes keyed messages by, computed as
// upstream's C++ client computes them (lib/Murmur3_32Hash.cc, lib/JavaStringHash.cc), so
// that a key lands on the same partition whichever client sent it.
//
// Upstream routes a keyed message to `hash(key) % partitions`, where hash is the scheme's
// value masked to a non-negative int32 (`& INT32_MAX`); key_hash returns exactly that.
// BoostHash is not offered: its value is boost::hash<std::string>, which Boost changed in
// 1.81, so it depends on the Boost an upstream client happens to be built with.
// Pure functions; thread-safe.
#pragma once

#include "magnetar/config.h"

#include <cstdint>
#include <string_view>

namespace magnetar::client_detail {

// MurmurHash3 x86 32-bit with seed 0 over the key's bytes, unmasked (upstream's
// Murmur3_32Hash::makeRawHash). Blocks are read little-endian whatever the host.
std::uint32_t murmur3_32(std::string_view bytes);

// upstream's JavaStringHash: h = 31 * h + c over the bytes, each taken as a signed char
// (as upstream's `const char*` is on x86 and x86-64), unmasked. Equals Java's
// String.hashCode() for ASCII keys only, since Java hashes UTF-16 code units.
std::uint32_t java_string_hash(std::string_view bytes);

// The scheme's hash masked to 31 bits: what upstream takes modulo the partition count.
std::int32_t key_hash(hashing_scheme scheme, std::string_view key);

}  // namespace magnetar::client_detail
