#include "perf/bench/key_sequences.h"

#include <gtest/gtest.h>

namespace magnetar::perf {
namespace {

TEST(key_sequences_test, each_key_in_order_is_all_unique) {
  key_sequences s(2);
  for (std::uint64_t i = 0; i < 3; ++i) {
    s.record(0, i);
    s.record(1, i);
  }
  EXPECT_EQ(s.unique(), 6u);
  EXPECT_EQ(s.duplicates(), 0u);
  EXPECT_EQ(s.out_of_order(), 0u);
}

TEST(key_sequences_test, a_sequence_seen_before_is_a_duplicate) {
  key_sequences s(1);
  s.record(0, 0);
  s.record(0, 1);
  s.record(0, 0);
  EXPECT_EQ(s.unique(), 2u);
  EXPECT_EQ(s.duplicates(), 1u);
  EXPECT_EQ(s.out_of_order(), 0u);
}

TEST(key_sequences_test, an_older_message_after_a_newer_one_is_out_of_order) {
  key_sequences s(1);
  s.record(0, 0);
  s.record(0, 2);
  s.record(0, 1);
  EXPECT_EQ(s.unique(), 3u);
  EXPECT_EQ(s.out_of_order(), 1u);
}

TEST(key_sequences_test, keys_keep_their_own_order) {
  key_sequences s(2);
  s.record(0, 5);
  s.record(1, 0);
  EXPECT_EQ(s.out_of_order(), 0u);
}

TEST(key_sequences_test, a_gap_alone_is_not_out_of_order) {
  key_sequences s(1);
  s.record(0, 0);
  s.record(0, 5000);  // beyond the marks grown so far
  EXPECT_EQ(s.unique(), 2u);
  EXPECT_EQ(s.out_of_order(), 0u);
}

TEST(key_sequences_test, keys_beyond_the_count_are_not_tracked) {
  key_sequences s(1);
  s.record(1, 0);
  EXPECT_EQ(s.unique(), 0u);
  EXPECT_EQ(s.duplicates(), 0u);
}

}  // namespace
}  // namespace magnetar::perf
