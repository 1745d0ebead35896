#include "perf/workload/pacer.h"

#include <gtest/gtest.h>

namespace magnetar::perf {
namespace {

using namespace std::chrono_literals;

TEST(pacer_test, messages_are_due_at_the_rate_from_the_start) {
  const auto start = pacer::clock::time_point{} + 1h;
  pacer p(1000, start);
  EXPECT_EQ(p.due(0), start);
  EXPECT_EQ(p.due(1), start + 1ms);
  EXPECT_EQ(p.due(2500), start + 2500ms);
}

TEST(pacer_test, rate_zero_makes_every_message_due_at_once) {
  const auto start = pacer::clock::time_point{} + 1h;
  pacer p(0, start);
  EXPECT_EQ(p.due(1'000'000), start);
}

TEST(pacer_test, an_overdue_message_is_sent_at_once_and_keeps_its_due_time) {
  const auto start = pacer::clock::now() - 1h;
  pacer p(10, start);
  EXPECT_EQ(p.wait(5), start + 500ms);
}

TEST(pacer_test, a_message_not_yet_due_is_sent_once_it_is) {
  const auto start = pacer::clock::now();
  pacer p(1000, start);
  const auto due = p.wait(20);
  EXPECT_EQ(due, start + 20ms);
  EXPECT_GE(pacer::clock::now(), due);
}

TEST(pacer_test, a_fractional_interval_is_kept_exact_over_many_messages) {
  const auto start = pacer::clock::time_point{} + 1h;
  pacer p(3, start);  // 333.33... ms apart: no rounding error adds up
  EXPECT_EQ(p.due(3'000'000), start + 1'000'000s);
}

}  // namespace
}  // namespace magnetar::perf
