#include "io/blocking_pool.h"

#include "io/block_on.h"
#include "io/running_shards.h"

#include <gtest/gtest.h>

#include <thread>

namespace magnetar::io {
namespace {

class blocking_pool_test : public ::testing::Test {
 protected:
  running_shards shards{1};
  blocking_pool pool{2};
};

TEST_F(blocking_pool_test, call_runs_off_the_shard_and_the_caller_resumes_on_it) {
  auto where = block_on(shards[0], [&]() -> awaitable<std::pair<bool, bool>> {
    auto ran_on_a_shard = co_await pool.run([]() -> result<bool> { return shard::current() != nullptr; });
    co_return std::pair(ran_on_a_shard.value(), shard::current() == &shards[0]);
  }());
  EXPECT_FALSE(where.first) << "the blocking call ran on a pool thread";
  EXPECT_TRUE(where.second) << "the caller resumed on its shard";
}

TEST_F(blocking_pool_test, failure_of_the_call_reaches_the_caller) {
  auto r =
      block_on(shards[0], pool.run([]() -> result<int> { return fail(base::errc::io_error, "fdatasync journal-0"); }));
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error(), base::errc::io_error);
}

TEST_F(blocking_pool_test, stopped_pool_refuses_calls_without_running_them) {
  pool.stop();
  bool ran = false;
  auto r = block_on(shards[0], pool.run([&]() -> result<void> {
    ran = true;
    return success();
  }));
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error(), errc::pool_stopped);
  EXPECT_FALSE(ran);
}

}  // namespace
}  // namespace magnetar::io
