#include "perf/bench/st_split_report.h"
#include "perf/bench/st_split_run.h"

#include <gtest/gtest.h>

namespace magnetar::perf {
namespace {

using namespace std::chrono_literals;

TEST(st_split_test, the_default_options_are_valid) { EXPECT_TRUE(validate(st_split_options{})); }

TEST(st_split_test, a_rate_of_zero_is_refused) {
  auto options = st_split_options{};
  options.rate = 0;
  EXPECT_EQ(validate(options).error(), base::errc::invalid_argument);
}

TEST(st_split_test, no_keys_is_refused) {
  auto options = st_split_options{};
  options.keys = 0;
  EXPECT_FALSE(validate(options));
}

TEST(st_split_test, the_merge_must_come_after_the_split) {
  auto options = st_split_options{};
  options.split_at = 20s;
  options.merge_at = 10s;
  auto checked = validate(options);
  ASSERT_FALSE(checked);
  EXPECT_EQ(checked.error().detail(), "expected split-at < merge-at < duration");
}

TEST(st_split_test, the_merge_must_come_before_the_end) {
  auto options = st_split_options{};
  options.merge_at = options.duration;
  EXPECT_FALSE(validate(options));
}

TEST(st_split_test, without_a_topic_a_new_one_is_named_by_the_time) {
  const auto now = std::chrono::system_clock::time_point(1'700'000'000s);
  EXPECT_EQ(st_split_topic(st_split_options{}, now), "topic://public/default/st-split-1700000000");
}

TEST(st_split_test, a_given_topic_is_kept) {
  auto options = st_split_options{};
  options.topic = "topic://public/default/mine";
  EXPECT_EQ(st_split_topic(options, std::chrono::system_clock::now()), "topic://public/default/mine");
}

TEST(st_split_test, the_summary_gives_the_load_the_counts_and_the_maxima) {
  st_split_options options;
  options.rate = 1000;
  options.keys = 10;
  st_split_results r;
  r.topic = "topic://public/default/x";
  r.sent = 30'000;
  r.send_errors = 2;
  r.unique = 29'999;
  r.duplicates = 3;
  r.out_of_order = 0;
  r.missing = 1;
  r.publish_latency_us.record(1000);
  r.publish_latency_us.record(2000);
  r.steady_max_publish_latency_ms = 4.3;
  r.steady_max_delivery_gap_ms = 12;
  r.split = {.at_seconds = 10.04, .admin_call_ms = 35.4, .max_publish_latency_ms = 20, .max_delivery_gap_ms = 150};
  r.merge = {.at_seconds = 20.01, .admin_call_ms = 40.6, .max_publish_latency_ms = 25, .max_delivery_gap_ms = 90};
  EXPECT_EQ(summary(options, r),
            "st-split on topic://public/default/x: 1000 msg/s offered for 30 s, 10 keys, split of segment 0 at 10.0 s, "
            "merge of 1+2 at 20.0 s\n"
            "  sent 30000 (errors 2), received 29999 unique, 3 duplicates, 0 out of key order, 1 missing\n"
            "  publish latency ms: p50 1.00 p99 2.00 p99.9 2.00 max 2.00\n"
            "  steady (1 s .. split):  max publish 4.3 ms, max delivery gap 12.0 ms\n"
            "  split (REST 35 ms): max publish 20.0 ms, max delivery gap 150.0 ms (within 5 s)\n"
            "  merge (REST 41 ms): max publish 25.0 ms, max delivery gap 90.0 ms (within 5 s)\n");
}

}  // namespace
}  // namespace magnetar::perf
