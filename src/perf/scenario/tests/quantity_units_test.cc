// quantity_units: the forms each kind of quantity takes, and the text it refuses.
#include "perf/scenario/quantity_units.h"

#include <gtest/gtest.h>

namespace magnetar::perf {
namespace {

using namespace std::chrono_literals;

TEST(quantity_units, durations_take_us_ms_s_and_m) {
  EXPECT_EQ(parse_duration("20ms"), 20ms);
  EXPECT_EQ(parse_duration("1.5s"), 1500ms);
  EXPECT_EQ(parse_duration("250us"), 250us);
  EXPECT_EQ(parse_duration("2m"), 120s);
  EXPECT_EQ(parse_duration(" 5 MS "), 5ms);
}

TEST(quantity_units, durations_need_a_unit) {
  EXPECT_FALSE(parse_duration("20"));
  EXPECT_FALSE(parse_duration("ms"));
  EXPECT_FALSE(parse_duration("20 parsecs"));
  EXPECT_FALSE(parse_duration("-5ms"));
}

TEST(quantity_units, percentages_need_the_sign_and_stay_within_100) {
  EXPECT_DOUBLE_EQ(parse_percent("1%").value(), 1.0);
  EXPECT_DOUBLE_EQ(parse_percent("0.25%").value(), 0.25);
  EXPECT_FALSE(parse_percent("0.01"));
  EXPECT_FALSE(parse_percent("101%"));
}

TEST(quantity_units, bit_rates_are_decimal_as_in_tc) {
  EXPECT_EQ(parse_bit_rate("20Mbit"), 20'000'000);
  EXPECT_EQ(parse_bit_rate("512kbit"), 512'000);
  EXPECT_EQ(parse_bit_rate("1Gbit"), 1'000'000'000);
  EXPECT_FALSE(parse_bit_rate("20MB"));
  EXPECT_FALSE(parse_bit_rate("20"));
}

TEST(quantity_units, byte_sizes_are_binary_as_in_tc) {
  EXPECT_EQ(parse_byte_size("64kb"), 64 * 1024);
  EXPECT_EQ(parse_byte_size("1mb"), 1024 * 1024);
  EXPECT_EQ(parse_byte_size("1500b"), 1500);
  EXPECT_EQ(parse_byte_size("2KiB"), 2048);
  EXPECT_FALSE(parse_byte_size("64"));
  EXPECT_FALSE(parse_byte_size("64kbit"));
}

}  // namespace
}  // namespace magnetar::perf
