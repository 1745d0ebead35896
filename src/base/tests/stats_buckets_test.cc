#include "base/stats_buckets.h"

#include <gtest/gtest.h>

#include <vector>

namespace magnetar::base {
namespace {

std::vector<std::uint64_t> counts_of(const stats_buckets& b) { return {b.counts().begin(), b.counts().end()}; }

TEST(stats_buckets, a_value_counts_in_the_first_bucket_whose_bound_is_at_least_it) {
  stats_buckets b({10, 100});
  b.record(0);
  b.record(10);  // at a bound: that bucket
  b.record(11);
  b.record(100);
  EXPECT_EQ(counts_of(b), (std::vector<std::uint64_t>{2, 2, 0}));
  EXPECT_EQ(b.count(), 4u);
  EXPECT_EQ(b.sum(), 121);
}

TEST(stats_buckets, a_value_past_the_last_bound_counts_as_overflow) {
  stats_buckets b({10, 100});
  b.record(101);
  EXPECT_EQ(counts_of(b), (std::vector<std::uint64_t>{0, 0, 1}));
}

TEST(stats_buckets, since_gives_what_was_recorded_after_an_earlier_copy) {
  stats_buckets b({10, 100});
  b.record(5);
  const auto earlier = b;
  b.record(50);
  b.record(500);
  const auto interval = b.since(earlier);
  EXPECT_EQ(counts_of(interval), (std::vector<std::uint64_t>{0, 1, 1}));
  EXPECT_EQ(interval.count(), 2u);
  EXPECT_EQ(interval.sum(), 550);
}

}  // namespace
}  // namespace magnetar::base
