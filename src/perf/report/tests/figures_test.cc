#include "perf/report/figures.h"

#include <gtest/gtest.h>

namespace magnetar::perf::report {
namespace {

TEST(figures, counts_group_thousands) { EXPECT_EQ(format_count(1234567.0), "1,234,567"); }

TEST(figures, no_value_is_a_dash) { EXPECT_EQ(format_decimal(std::nullopt, 1), "–"); }

TEST(figures, a_small_negative_value_rounds_to_zero_without_a_sign) {
  EXPECT_EQ(format_decimal(-0.01, 1), "0.0");
  EXPECT_EQ(format_decimal(-0.2, 1), "-0.2");
}

TEST(figures, milliseconds_keep_precision_that_suits_their_size) {
  EXPECT_EQ(format_millis(0.1234), "0.123");
  EXPECT_EQ(format_millis(12.34), "12.3");
  EXPECT_EQ(format_millis(1234.0), "1,234");
}

}  // namespace
}  // namespace magnetar::perf::report
