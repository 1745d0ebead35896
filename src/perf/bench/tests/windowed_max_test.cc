#include "perf/bench/windowed_max.h"

#include <gtest/gtest.h>

namespace magnetar::perf {
namespace {

using namespace std::chrono_literals;

TEST(windowed_max_test, each_window_keeps_its_largest_value) {
  windowed_max m(10s);
  m.record(110ms, 3);
  m.record(150ms, 7);
  m.record(190ms, 5);
  EXPECT_EQ(m.max_between(100ms, 200ms), 7);
}

TEST(windowed_max_test, a_span_takes_the_windows_that_start_in_it) {
  windowed_max m(10s);
  m.record(50ms, 9);    // window 0
  m.record(250ms, 4);   // window 2
  m.record(1050ms, 8);  // window 10
  EXPECT_EQ(m.max_between(100ms, 1000ms), 4);
  EXPECT_EQ(m.max_between(0ms, 1000ms), 9);
  EXPECT_EQ(m.max_between(1000ms, 1100ms), 8);
}

TEST(windowed_max_test, a_span_without_values_is_zero) {
  windowed_max m(10s);
  m.record(50ms, 9);
  EXPECT_EQ(m.max_between(1s, 2s), 0);
}

TEST(windowed_max_test, values_past_the_expected_span_still_count) {
  windowed_max m(1s);
  m.record(5s, 2);
  EXPECT_EQ(m.max_between(5s, 6s), 2);
}

TEST(windowed_max_test, a_time_before_the_start_counts_in_the_first_window) {
  windowed_max m(1s);
  m.record(-30ms, 6);
  EXPECT_EQ(m.max_between(0ms, 100ms), 6);
}

}  // namespace
}  // namespace magnetar::perf
