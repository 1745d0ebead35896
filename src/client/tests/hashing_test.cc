// Key hashes against vectors computed from upstream's definitions (lib/Murmur3_32Hash.cc,
// lib/JavaStringHash.cc): an independent implementation of each, checked against the
// published MurmurHash3 x86_32 values and Java's String.hashCode.
#include "client/hashing.h"

#include <gtest/gtest.h>

namespace magnetar::client_detail {
namespace {

TEST(hashing, murmur3_32_matches_the_published_vectors) {
  EXPECT_EQ(murmur3_32(""), 0u);
  EXPECT_EQ(murmur3_32("hello"), 0x248bfa47u);
  EXPECT_EQ(murmur3_32("The quick brown fox jumps over the lazy dog"), 0x2e4ff723u);
}

TEST(hashing, murmur3_32_mixes_every_tail_length) {
  EXPECT_EQ(murmur3_32("a"), 0x3c2569b2u);
  EXPECT_EQ(murmur3_32("ab"), 0x9bbfd75fu);
  EXPECT_EQ(murmur3_32("abc"), 0xb3dd93fau);
  EXPECT_EQ(murmur3_32("abcd"), 0x43ed676au);
  EXPECT_EQ(murmur3_32("abcde"), 0xe89b9af6u);
}

TEST(hashing, murmur3_key_hash_clears_the_sign_bit_as_upstream) {
  // Raw values with the top bit set: upstream masks with INT32_MAX before the modulo.
  EXPECT_EQ(murmur3_32("key-0"), 0xe337f8bfu);
  EXPECT_EQ(key_hash(hashing_scheme::murmur3_32, "key-0"), 1664612543);
  EXPECT_EQ(murmur3_32("user-42"), 0xb972dad0u);
  EXPECT_EQ(key_hash(hashing_scheme::murmur3_32, "user-42"), 963828432);
  EXPECT_EQ(key_hash(hashing_scheme::murmur3_32, "h\xc3\xa9llo"), 1017094248);
}

TEST(hashing, java_string_hash_equals_java_for_ascii_keys) {
  EXPECT_EQ(key_hash(hashing_scheme::java_string_hash, ""), 0);
  EXPECT_EQ(key_hash(hashing_scheme::java_string_hash, "hello"), 99162322);  // "hello".hashCode()
  // "Hello World".hashCode() is -862545276; masked to 31 bits as upstream.
  EXPECT_EQ(java_string_hash("Hello World"), static_cast<std::uint32_t>(-862545276));
  EXPECT_EQ(key_hash(hashing_scheme::java_string_hash, "Hello World"), 1284938372);
  EXPECT_EQ(key_hash(hashing_scheme::java_string_hash, "key-0"), 101943362);
}

TEST(hashing, java_string_hash_takes_bytes_as_signed_chars_as_upstream_cpp) {
  // UTF-8 "héllo": 0xc3 and 0xa9 count as -61 and -87 (upstream's `const char*` on x86).
  EXPECT_EQ(key_hash(hashing_scheme::java_string_hash, "h\xc3\xa9llo"), 771128705);
}

TEST(hashing, a_key_lands_on_upstreams_partition) {
  // hash % partitions, as upstream's routers compute it, for 7 partitions.
  EXPECT_EQ(key_hash(hashing_scheme::murmur3_32, "hello") % 7, 6);
  EXPECT_EQ(key_hash(hashing_scheme::murmur3_32, "key-1") % 7, 6);
  EXPECT_EQ(key_hash(hashing_scheme::murmur3_32, "key-2") % 7, 4);
  EXPECT_EQ(key_hash(hashing_scheme::java_string_hash, "hello") % 7, 0);
  EXPECT_EQ(key_hash(hashing_scheme::java_string_hash, "key-1") % 7, 4);
}

}  // namespace
}  // namespace magnetar::client_detail
