#include "io/timer.h"

#include "io/block_on.h"
#include "io/run_on.h"
#include "io/running_shards.h"

#include <gtest/gtest.h>

#include <chrono>
#include <future>
#include <vector>

namespace magnetar::io {
namespace {

using namespace std::chrono_literals;

class timer_test : public ::testing::Test {
 protected:
  // Runs everything already posted to the shard, wake-ups included.
  void drain() { shards.drain(0); }

  // Starts a wait on the shard; the future holds what it returned.
  std::future<bool> start_wait(timer& t, base::clock::duration delay) {
    auto promise = std::make_shared<std::promise<bool>>();
    auto future = promise->get_future();
    spawn(shards[0].executor(),
          [&t, delay, promise]() -> awaitable<void> { promise->set_value(co_await t.wait_for(delay)); });
    drain();
    return future;
  }

  static bool ready(std::future<bool>& f) { return f.wait_for(0s) == std::future_status::ready; }

  running_shards shards{1};
  base::manual_clock clock;
};

TEST_F(timer_test, manual_clock_fires_the_timer_when_advanced_past_its_deadline) {
  timer t(shards[0].executor(), clock);
  auto fired = start_wait(t, 10s);
  clock.advance(9s);
  drain();
  EXPECT_EQ(clock.pending_wakeups(), 1u) << "the deadline has not been reached";
  EXPECT_FALSE(ready(fired));
  clock.advance(1s);
  EXPECT_EQ(clock.pending_wakeups(), 0u);
  ASSERT_EQ(fired.wait_for(30s), std::future_status::ready);
  EXPECT_TRUE(fired.get());
}

TEST_F(timer_test, manual_clock_fires_timers_in_deadline_order) {
  std::vector<int> order;
  std::promise<void> both;
  timer early(shards[0].executor(), clock);
  timer late(shards[0].executor(), clock);
  spawn(shards[0].executor(), [&]() -> awaitable<void> {
    co_await late.wait_for(20s);
    order.push_back(20);
    both.set_value();
  });
  spawn(shards[0].executor(), [&]() -> awaitable<void> {
    co_await early.wait_for(10s);
    order.push_back(10);
  });
  drain();
  clock.advance(30s);
  both.get_future().wait();
  EXPECT_EQ(order, (std::vector<int>{10, 20}));
}

TEST_F(timer_test, cancel_wakes_the_wait_with_false) {
  timer t(shards[0].executor(), clock);
  auto fired = start_wait(t, 10s);
  block_on(shards[0], [&]() -> awaitable<void> {
    t.cancel();
    co_return;
  }());
  EXPECT_FALSE(fired.get());
  EXPECT_EQ(clock.pending_wakeups(), 0u);
}

TEST_F(timer_test, deadline_already_passed_fires_at_once) {
  timer t(shards[0].executor(), clock);
  auto fired = block_on(shards[0], t.wait_until(clock.now() - 1s));
  EXPECT_TRUE(fired);
}

TEST_F(timer_test, system_clock_timer_fires) {
  timer t(shards[0].executor(), base::system_clock());
  EXPECT_TRUE(block_on(shards[0], t.wait_for(1ms)));
}

}  // namespace
}  // namespace magnetar::io
