#include "io/gate.h"

#include "io/block_on.h"
#include "io/errc.h"
#include "io/run_on.h"
#include "io/running_shards.h"

#include <gtest/gtest.h>

#include <atomic>
#include <future>
#include <optional>

namespace magnetar::io {
namespace {

class gate_test : public ::testing::Test {
 protected:
  running_shards shards{2};
  gate g{"test service"};
};

TEST_F(gate_test, close_completes_at_once_without_work_in_flight) {
  block_on(shards[0], g.close());
  EXPECT_TRUE(g.is_closed());
}

TEST_F(gate_test, close_waits_for_work_in_flight) {
  auto held = g.enter();
  ASSERT_TRUE(held);
  std::promise<void> closed;
  auto closed_future = closed.get_future();
  spawn(shards[0].executor(), [&]() -> awaitable<void> {
    co_await g.close();
    closed.set_value();
  });
  shards.drain(0);  // close() has now started and parked
  EXPECT_TRUE(g.is_closed());
  EXPECT_EQ(closed_future.wait_for(std::chrono::seconds(0)), std::future_status::timeout);

  // The work finishes on another shard; its pass is released there.
  block_on(shards[1], [&, p = std::move(held).value()]() mutable -> awaitable<void> {
    auto done = std::move(p);
    co_return;
  }());
  closed_future.wait();
  EXPECT_EQ(g.in_flight(), 0);
}

TEST_F(gate_test, closed_gate_refuses_new_work_with_a_clear_error) {
  block_on(shards[0], g.close());
  auto refused = g.enter();
  ASSERT_FALSE(refused);
  EXPECT_EQ(refused.error(), errc::gate_closed);
  EXPECT_EQ(refused.error().message(), "test service is stopping: shutting down: no new work is admitted");
}

TEST_F(gate_test, passes_count_work_in_flight) {
  {
    auto a = g.enter();
    auto b = g.enter();
    EXPECT_EQ(g.in_flight(), 2);
    auto moved = std::move(a).value();
    EXPECT_EQ(g.in_flight(), 2);
  }
  EXPECT_EQ(g.in_flight(), 0);
}

}  // namespace
}  // namespace magnetar::io
