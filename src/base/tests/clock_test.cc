#include "base/clock.h"

#include <gtest/gtest.h>

#include <chrono>
#include <vector>

namespace magnetar::base {
namespace {

using namespace std::chrono_literals;

TEST(manual_clock, moves_only_when_advanced) {
  manual_clock clock;
  const auto start = clock.now();
  const auto wall_start = clock.wall_now();
  EXPECT_EQ(clock.now(), start);
  clock.advance(250ms);
  EXPECT_EQ(clock.now() - start, 250ms);
  EXPECT_EQ(clock.wall_now() - wall_start, 250ms);
}

TEST(manual_clock, runs_wakeups_in_deadline_order_when_due) {
  manual_clock clock;
  std::vector<int> ran;
  clock.call_at(clock.now() + 30ms, [&] { ran.push_back(30); });
  clock.call_at(clock.now() + 10ms, [&] { ran.push_back(10); });
  clock.call_at(clock.now() + 20ms, [&] { ran.push_back(20); });
  clock.advance(15ms);
  EXPECT_EQ(ran, (std::vector<int>{10}));
  clock.advance(100ms);
  EXPECT_EQ(ran, (std::vector<int>{10, 20, 30}));
  EXPECT_EQ(clock.pending_wakeups(), 0u);
}

TEST(manual_clock, runs_an_already_due_wakeup_at_once) {
  manual_clock clock;
  bool ran = false;
  clock.call_at(clock.now(), [&] { ran = true; });
  EXPECT_TRUE(ran);
}

TEST(manual_clock, cancelled_wakeup_never_runs) {
  manual_clock clock;
  bool ran = false;
  auto id = clock.call_at(clock.now() + 1s, [&] { ran = true; });
  EXPECT_TRUE(clock.cancel(id));
  EXPECT_FALSE(clock.cancel(id));
  clock.advance(2s);
  EXPECT_FALSE(ran);
}

TEST(manual_clock, wakeup_may_register_another) {
  manual_clock clock;
  int runs = 0;
  clock.call_at(clock.now() + 1s, [&] {
    ++runs;
    clock.call_at(clock.now() + 1s, [&] { ++runs; });
  });
  clock.advance(1s);
  EXPECT_EQ(runs, 1);
  clock.advance(1s);
  EXPECT_EQ(runs, 2);
}

TEST(system_clock, is_monotonic) {
  auto& clock = system_clock();
  const auto a = clock.now();
  const auto b = clock.now();
  EXPECT_LE(a, b);
  EXPECT_EQ(clock.as_manual(), nullptr);
}

}  // namespace
}  // namespace magnetar::base
