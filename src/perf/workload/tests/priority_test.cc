#include "perf/workload/priority.h"

#include <gtest/gtest.h>

#include <sys/resource.h>
#include <algorithm>
#include <thread>

namespace magnetar::perf {
namespace {

// Each test changes a thread of its own: a nice value can't be taken back without
// privilege, and the test runner's thread must keep its own.
int nice_after(int start_steps, int steps) {
  int seen = -100;
  std::thread([&] {
    if (start_steps > 0) (void)lower_priority(start_steps);
    if (lower_priority(steps)) seen = ::getpriority(PRIO_PROCESS, 0);
  }).join();
  return seen;
}

TEST(priority, lowers_the_calling_thread_by_the_steps) {
  const int before = ::getpriority(PRIO_PROCESS, 0);
  EXPECT_EQ(nice_after(0, 3), std::min(before + 3, 19));
  EXPECT_EQ(::getpriority(PRIO_PROCESS, 0), before);  // the caller's thread is not touched
}

TEST(priority, zero_steps_leave_it) { EXPECT_EQ(nice_after(0, 0), ::getpriority(PRIO_PROCESS, 0)); }

TEST(priority, stops_at_the_kernels_lowest) { EXPECT_EQ(nice_after(15, 10), 19); }

TEST(priority, the_available_steps_stop_at_the_kernels_lowest) {
  int near_the_end = -1, far_from_it = -1, none = -1;
  std::thread([&] {
    far_from_it = available_nice_steps(2);
    none = available_nice_steps(0);
    (void)lower_priority(19);
    near_the_end = available_nice_steps(5);
  }).join();
  EXPECT_EQ(far_from_it, std::min(2, 19 - ::getpriority(PRIO_PROCESS, 0)));
  EXPECT_EQ(none, 0);
  EXPECT_EQ(near_the_end, 0);
}

TEST(priority, a_thread_started_afterwards_inherits_it) {
  const int before = ::getpriority(PRIO_PROCESS, 0);
  int child = -100;
  std::thread([&] {
    ASSERT_TRUE(lower_priority(2));
    std::thread([&] { child = ::getpriority(PRIO_PROCESS, 0); }).join();
  }).join();
  EXPECT_EQ(child, std::min(before + 2, 19));
}

}  // namespace
}  // namespace magnetar::perf
