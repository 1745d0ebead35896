#include "perf/measure/timeline.h"

#include <gtest/gtest.h>

#include <unistd.h>
#include <fstream>

namespace magnetar::perf {
namespace {

TEST(timeline, gateway_header_has_the_readme_columns) {
  const timeline t(gateway_timeline_columns(), true);
  EXPECT_EQ(t.csv_header(), "epochMillis,sent,sendErrors,inFlight,p50Millis,p99Millis,maxMillis\n");
}

TEST(timeline, application_header_has_the_readme_columns) {
  const timeline t(application_timeline_columns(), true);
  EXPECT_EQ(t.csv_header(), "epochMillis,received,duplicates,violations,p50Millis,p99Millis,maxMillis\n");
}

TEST(timeline, a_row_sums_counters_and_latency_of_its_interval) {
  timeline t(gateway_timeline_columns(), true);
  t.add("sent", 3);
  t.add("sent");
  t.set("inFlight", 17);
  for (std::int64_t v = 1; v <= 100; ++v) t.record_latency_micros(v * 10);
  EXPECT_EQ(t.flush_row(1000), "1000,4,0,17,0.500,0.990,1.000\n");
}

TEST(timeline, counters_and_latency_restart_each_row_while_gauges_stay) {
  timeline t(gateway_timeline_columns(), true);
  t.add("sent", 5);
  t.set("inFlight", 2);
  t.record_latency_micros(1500);
  t.flush_row(1000);
  t.add(t.column("sendErrors"), 1);
  EXPECT_EQ(t.flush_row(2000), "2000,0,1,2,,,\n");
}

TEST(timeline, without_latency_columns_rows_hold_only_the_columns) {
  timeline t({{"a"}, {"b", timeline_column_kind::gauge}}, false);
  t.add("a", 2);
  t.set("b", 9);
  t.record_latency_micros(10);
  EXPECT_EQ(t.csv_header(), "epochMillis,a,b\n");
  EXPECT_EQ(t.flush_row(5), "5,2,9\n");
}

TEST(timeline_writer, writes_the_header_and_the_last_partial_row_on_stop) {
  const auto file =
      std::filesystem::temp_directory_path() / ("magnetar-timeline-" + std::to_string(::getpid()) + ".csv");
  timeline t(application_timeline_columns(), true);
  base::manual_clock clock(base::clock::wall_time_point(std::chrono::milliseconds(1'700'000'000'000)));
  // An interval no test run reaches: the only row is the one stop() writes.
  auto writer = timeline_writer::start(t, file, std::chrono::hours(1), clock);
  ASSERT_TRUE(writer) << writer.error().message();
  t.add("received", 7);
  t.record_latency_micros(2000);
  ASSERT_TRUE(writer.value()->stop());
  EXPECT_TRUE(writer.value()->stop());  // a second stop does nothing

  std::ifstream in(file);
  const std::string text{std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
  EXPECT_EQ(text,
            "epochMillis,received,duplicates,violations,p50Millis,p99Millis,maxMillis\n"
            "1700000000000,7,0,0,2.000,2.000,2.000\n");
  std::filesystem::remove(file);
}

TEST(timeline_writer, a_file_in_a_missing_directory_is_an_io_error) {
  timeline t(application_timeline_columns(), true);
  const auto writer = timeline_writer::start(t, "/nonexistent-dir/timeline.csv");
  ASSERT_FALSE(writer);
  EXPECT_EQ(writer.error().code(), base::errc::io_error);
}

}  // namespace
}  // namespace magnetar::perf
