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

}  // namespace
}  // namespace magnetar::perf
