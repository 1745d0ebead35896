#include "perf/report/run_files.h"

#include <gtest/gtest.h>

namespace magnetar::perf::report {
namespace {

constexpr std::string_view distribution = R"(       Value     Percentile TotalCount 1/(1-Percentile)

       0.500 0.000000000000          1           1.00
       1.000 0.500000000000        500           2.00
       2.000 0.900000000000        900          10.00
       8.000 0.990000000000        990         100.00
      12.000 1.000000000000       1000
#[Mean    =        1.100, StdDeviation   =        0.900]
#[Max     =       12.000, Total count    =         1000]
#[Buckets =           20, SubBuckets     =         2048]
)";

TEST(run_files, hgrm_reads_every_percentile_line_and_skips_header_and_footer) {
  auto points = parse_hgrm(distribution);
  ASSERT_TRUE(points) << points.error();
  ASSERT_EQ(points.value().size(), 5u);
  EXPECT_DOUBLE_EQ(points.value()[1].value_millis, 1.0);
  EXPECT_DOUBLE_EQ(points.value()[1].percentile, 0.5);
  EXPECT_EQ(points.value()[4].total_count, 1000u);
}

TEST(run_files, hgrm_without_percentile_lines_is_invalid) {
  auto points = parse_hgrm("Value Percentile\n#[Mean = 0]\n");
  ASSERT_FALSE(points);
  EXPECT_EQ(points.error(), base::errc::invalid_argument);
}

TEST(run_files, value_at_takes_the_first_line_at_or_above_the_percentile) {
  auto points = parse_hgrm(distribution).value();
  EXPECT_DOUBLE_EQ(value_at(points, 0.5).value(), 1.0);
  EXPECT_DOUBLE_EQ(value_at(points, 0.95).value(), 8.0);
  EXPECT_DOUBLE_EQ(value_at(points, 1.0).value(), 12.0);
  EXPECT_FALSE(value_at({}, 0.5));
}

TEST(run_files, csv_drops_a_truncated_last_line) {
  auto table = parse_csv("epochMillis,sent,p50Millis\n1000,5,1.5\n2000,6,1.25\n3000,7");
  ASSERT_EQ(table.rows.size(), 2u);
  EXPECT_DOUBLE_EQ(table.number(table.rows[1], "p50Millis").value(), 1.25);
  EXPECT_FALSE(table.number(table.rows[1], "absent"));
}

TEST(run_files, events_skip_lines_without_a_time) {
  auto events =
      parse_events("epochMillis,source,event\n100,launcher,run-started\nbroken\n200,gateways,gateways-started\n");
  ASSERT_EQ(events.size(), 2u);
  EXPECT_EQ(events[1].epoch_millis, 200);
  EXPECT_EQ(events[1].source, "gateways");
  EXPECT_EQ(events[1].event, "gateways-started");
}

TEST(run_files, malformed_json_names_the_file) {
  auto parsed = parse_json("{\"a\": ", "run-info.json");
  ASSERT_FALSE(parsed);
  EXPECT_NE(parsed.error().detail().find("run-info.json"), std::string::npos);
}

TEST(run_files, json_text_writes_numbers_and_booleans_out) {
  auto object = nlohmann::json::parse(R"({"cpus": 2, "passed": true, "name": "x", "rate": 1.5})");
  EXPECT_EQ(json_text(object, "cpus").value(), "2");
  EXPECT_EQ(json_text(object, "passed").value(), "true");
  EXPECT_EQ(json_text(object, "name").value(), "x");
  EXPECT_FALSE(json_text(object, "absent"));
  EXPECT_DOUBLE_EQ(json_number(object, "rate").value(), 1.5);
  EXPECT_FALSE(json_number(object, "name"));
}

}  // namespace
}  // namespace magnetar::perf::report
