#include "perf/bench/perf_report.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

namespace magnetar::perf {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;

perf_options options_of(std::size_t message_size, double rate = 0) {
  perf_options o;
  o.topic = "t";
  o.message_size = message_size;
  o.rate = rate;
  return o;
}

perf_results two_sides() {
  perf_results r;
  r.sent = 1000;
  r.produce_seconds = 2.0;
  r.send_errors = 1;
  r.received = 900;
  r.consume_seconds = 3.0;
  return r;
}

TEST(perf_report_test, per_second_is_zero_without_time) {
  EXPECT_EQ(per_second(10, 0), 0);
  EXPECT_EQ(per_second(10, 4), 2.5);
}

TEST(perf_report_test, the_summary_gives_each_sides_rate) {
  EXPECT_EQ(summary(options_of(1000), two_sides()),
            "topic t | 1000 B messages | max rate\n"
            "produced 1000 msgs in 2.0 s: 500 msg/s, 0.5 MB/s; send errors 1\n"
            "consumed 900 msgs in 3.0 s: 300 msg/s\n");
}

TEST(perf_report_test, the_summary_names_a_paced_rate) {
  EXPECT_THAT(summary(options_of(100, 2000), two_sides()), HasSubstr("| paced at 2000 msg/s\n"));
}

TEST(perf_report_test, the_summary_spreads_several_consumers) {
  auto options = options_of(100);
  options.subscription_type = "Shared";
  auto r = two_sides();
  r.received_per_consumer = {300, 100, 200};
  r.consume_seconds = 2.0;
  EXPECT_THAT(summary(options, r), HasSubstr("3 Shared consumers: 50 to 150 msg/s each\n"));
}

TEST(perf_report_test, the_summary_prints_the_latency_percentiles_in_milliseconds) {
  auto r = two_sides();
  r.publish_latency_us.record(1000);
  r.publish_latency_us.record(2000);
  r.end_to_end_latency_us.record(1500);
  const auto text = summary(options_of(100), r);
  EXPECT_THAT(text, HasSubstr("\npublish latency ms: p50 1.00 p99 2.00 p99.9 2.00 max 2.00\n"));
  EXPECT_THAT(text, HasSubstr("\nend-to-end latency ms: p50 1.50 p99 1.50 p99.9 1.50 max 1.50\n"));
}

TEST(perf_report_test, the_summary_names_the_slowest_publish_windows_with_their_time) {
  auto r = two_sides();
  r.publish_latency_us.record(1000);
  r.publish_max_ms_by_window = {250.0, 0, 1.5, 80.25, 2.0};
  EXPECT_THAT(summary(options_of(100), r),
              HasSubstr("\nslowest publishes, by 100 ms of send times: 250.00 ms at 0.0 s, 80.25 ms at 0.3 s, "
                        "2.00 ms at 0.4 s\n"));
}

TEST(perf_report_test, the_summary_leaves_out_latency_without_samples) {
  EXPECT_THAT(summary(options_of(100), two_sides()), Not(HasSubstr("latency")));
}

TEST(perf_report_test, the_report_tables_both_sides) {
  const auto text = markdown_report(options_of(1000), two_sides());
  EXPECT_THAT(text, HasSubstr("| produce | 1000 | 2.0 | 500 | 0.5 |\n| consume | 900 | 3.0 | 300 | 0.3 |\n"));
}

TEST(perf_report_test, the_report_counts_receipted_messages_never_received_as_lost) {
  EXPECT_THAT(markdown_report(options_of(100), two_sides()),
              HasSubstr("Send errors: 1. Messages lost (receipted, never received): 100.\n"));
}

TEST(perf_report_test, the_report_rows_hold_count_percentiles_max_and_mean) {
  auto r = two_sides();
  r.publish_latency_us.record(1000);
  r.publish_latency_us.record(2000);
  EXPECT_THAT(markdown_report(options_of(100), r),
              HasSubstr("| publish (from intended send time) | 2 | 1.00 | 2.00 | 2.00 | 2.00 | 1.50 |\n"));
}

TEST(perf_report_test, the_report_names_key_based_batching) {
  auto options = options_of(100);
  options.keys = 10;
  const auto text = markdown_report(options, two_sides());
  EXPECT_THAT(text, HasSubstr("| batching | key-based (max 1000 messages, 1 ms) |\n"));
  EXPECT_THAT(text, HasSubstr("| keys | 10 |\n"));
}

TEST(perf_report_test, the_report_tables_consumers_only_when_there_are_several) {
  auto r = two_sides();
  r.received_per_consumer = {900};
  EXPECT_THAT(markdown_report(options_of(100), r), Not(HasSubstr("## Per consumer")));
  r.received_per_consumer = {600, 300};
  EXPECT_THAT(markdown_report(options_of(100), r), HasSubstr("| 0 | 600 | 200 |\n| 1 | 300 | 100 |\n"));
}

}  // namespace
}  // namespace magnetar::perf
