#include "base/murmur3.h"

#include <gtest/gtest.h>

namespace magnetar::base {
namespace {

// Published vectors of MurmurHash3_x86_32 (SMHasher's reference implementation).
TEST(murmur3_32, empty_input_with_seed_zero_is_zero) { EXPECT_EQ(murmur3_32(""), 0u); }

TEST(murmur3_32, empty_input_with_seed_one) { EXPECT_EQ(murmur3_32("", 1), 0x514e28b7u); }

TEST(murmur3_32, whole_blocks) { EXPECT_EQ(murmur3_32("test"), 0xba6bd213u); }

TEST(murmur3_32, a_tail_after_the_blocks) { EXPECT_EQ(murmur3_32("Hello, world!"), 0xc0363e43u); }

TEST(murmur3_32, seed_changes_the_hash) { EXPECT_EQ(murmur3_32("Hello, world!", 1234), 0xfaf6cdb3u); }

TEST(murmur3_32, sentence) { EXPECT_EQ(murmur3_32("The quick brown fox jumps over the lazy dog"), 0x2e4ff723u); }

}  // namespace
}  // namespace magnetar::base
