#include "perf/measure/hgrm.h"

#include <gtest/gtest.h>

namespace magnetar::perf {
namespace {

// HdrHistogram's own output for Histogram(1, 3600000000000, 3) holding 100, 200, 250
// and 600, printed with outputPercentileDistribution(out, 5, 1.0): the reference layout.
constexpr std::string_view hdrhistogram_reference =
    "       Value     Percentile TotalCount 1/(1-Percentile)\n"
    "\n"
    "     100.000 0.000000000000          1           1.00\n"
    "     100.000 0.100000000000          1           1.11\n"
    "     100.000 0.200000000000          1           1.25\n"
    "     200.000 0.300000000000          2           1.43\n"
    "     200.000 0.400000000000          2           1.67\n"
    "     200.000 0.500000000000          2           2.00\n"
    "     250.000 0.550000000000          3           2.22\n"
    "     250.000 0.600000000000          3           2.50\n"
    "     250.000 0.650000000000          3           2.86\n"
    "     250.000 0.700000000000          3           3.33\n"
    "     250.000 0.750000000000          3           4.00\n"
    "     600.000 0.775000000000          4           4.44\n"
    "     600.000 1.000000000000          4\n"
    "#[Mean    =      287.500, StdDeviation   =      188.331]\n"
    "#[Max     =      600.000, Total count    =            4]\n"
    "#[Buckets =           32, SubBuckets     =         2048]\n";

base::histogram four_values(std::int64_t highest) {
  base::histogram h(highest, 3);
  for (std::int64_t v : {100, 200, 250, 600}) h.record(v);
  return h;
}

TEST(percentile_distribution, matches_hdrhistogram_layout_unscaled) {
  const std::string text = percentile_distribution(four_values(3'600'000'000'000), {.output_scaling = 1.0});
  EXPECT_EQ(text, hdrhistogram_reference);
}

TEST(percentile_distribution, prints_microseconds_as_milliseconds) {
  const std::string text = percentile_distribution(four_values(3'600'000'000));
  EXPECT_NE(text.find("       0.100 0.000000000000          1           1.00\n"), std::string::npos) << text;
  EXPECT_NE(text.find("       0.600 1.000000000000          4\n"), std::string::npos) << text;
  EXPECT_NE(text.find("#[Max     =        0.600, Total count    =            4]\n"), std::string::npos) << text;
  EXPECT_NE(text.find("#[Buckets =           22, SubBuckets     =         2048]\n"), std::string::npos) << text;
}

TEST(percentile_distribution, values_are_the_highest_equivalent_of_their_bucket) {
  base::histogram h(3'600'000'000, 3);
  h.record(10'000);  // in a bucket 8 wide: 10000..10007
  const std::string text = percentile_distribution(h);
  EXPECT_NE(text.find("      10.007 1.000000000000          1\n"), std::string::npos) << text;
  EXPECT_NE(text.find("#[Max     =       10.007,"), std::string::npos) << text;
}

TEST(percentile_distribution, an_empty_histogram_has_only_header_and_footer) {
  const std::string text = percentile_distribution(base::histogram(3'600'000'000, 3));
  EXPECT_EQ(text,
            "       Value     Percentile TotalCount 1/(1-Percentile)\n"
            "\n"
            "#[Mean    =        0.000, StdDeviation   =        0.000]\n"
            "#[Max     =        0.000, Total count    =            0]\n"
            "#[Buckets =           22, SubBuckets     =         2048]\n");
}

TEST(percentile_distribution, ticks_halve_their_step_every_half_distance) {
  base::histogram h(3'600'000'000, 3);
  for (std::int64_t v = 1; v <= 100'000; ++v) h.record(v);
  const auto points = parse_percentile_distribution(percentile_distribution(h)).value();
  std::vector<double> levels;
  for (const hgrm_point& p : points) levels.push_back(p.percentile);
  // 0 .. 0.5 in steps of 0.1, 0.5 .. 0.75 in steps of 0.05, then 0.025, ...
  ASSERT_GT(levels.size(), 12u);
  EXPECT_DOUBLE_EQ(levels[1], 0.1);
  EXPECT_DOUBLE_EQ(levels[5], 0.5);
  EXPECT_DOUBLE_EQ(levels[6], 0.55);
  EXPECT_DOUBLE_EQ(levels[10], 0.75);
  EXPECT_DOUBLE_EQ(levels[11], 0.775);
  EXPECT_DOUBLE_EQ(levels.back(), 1.0);
  EXPECT_EQ(points.back().total_count, 100'000);
  for (std::size_t i = 1; i < points.size(); ++i) {
    EXPECT_GE(points[i].value_millis, points[i - 1].value_millis) << i;
    EXPECT_GE(points[i].total_count, points[i - 1].total_count) << i;
  }
}

TEST(parse_percentile_distribution, reads_back_every_row) {
  const auto points = parse_percentile_distribution(hdrhistogram_reference);
  ASSERT_TRUE(points) << points.error().message();
  ASSERT_EQ(points.value().size(), 13u);
  EXPECT_DOUBLE_EQ(points.value()[0].value_millis, 100.0);
  EXPECT_DOUBLE_EQ(points.value()[0].percentile, 0.0);
  EXPECT_EQ(points.value()[0].total_count, 1);
  EXPECT_DOUBLE_EQ(points.value()[11].percentile, 0.775);
  EXPECT_DOUBLE_EQ(points.value()[12].value_millis, 600.0);
  EXPECT_DOUBLE_EQ(points.value()[12].percentile, 1.0);
  EXPECT_EQ(points.value()[12].total_count, 4);
}

TEST(parse_percentile_distribution, accepts_inf_in_the_last_row) {
  const auto points = parse_percentile_distribution("       1.000 1.000000000000          4            inf\n");
  ASSERT_TRUE(points) << points.error().message();
  EXPECT_EQ(points.value().size(), 1u);
}

TEST(parse_percentile_distribution, rejects_a_row_that_is_not_numbers_naming_the_line) {
  const auto points = parse_percentile_distribution(
      "       Value     Percentile TotalCount 1/(1-Percentile)\n\n"
      "     100.000 0.000000000000          1           1.00\n"
      "     abc 0.1 2\n");
  ASSERT_FALSE(points);
  EXPECT_EQ(points.error().code(), base::errc::invalid_argument);
  EXPECT_NE(points.error().message().find("line 4"), std::string::npos) << points.error().message();
}

TEST(parse_percentile_distribution, rejects_a_row_with_two_fields) {
  EXPECT_FALSE(parse_percentile_distribution("1.0 0.5\n"));
}

}  // namespace
}  // namespace magnetar::perf
