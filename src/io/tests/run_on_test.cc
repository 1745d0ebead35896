#include "io/run_on.h"
#include "io/block_on.h"
#include "io/running_shards.h"

#include "base/result.h"

#include <gtest/gtest.h>

#include <atomic>
#include <thread>
#include <vector>

namespace magnetar::io {
namespace {

class run_on_test : public ::testing::Test {
 protected:
  running_shards shards{2};
};

TEST_F(run_on_test, function_runs_on_the_target_shard_and_returns_its_value) {
  auto answer = block_on(shards[0], [&]() -> awaitable<std::pair<unsigned, unsigned>> {
    const unsigned ran_on = co_await run_on(shards[1], [] { return shard::current()->id(); });
    co_return std::pair(ran_on, shard::current()->id());
  }());
  EXPECT_EQ(answer.first, 1u) << "the function ran on the target shard";
  EXPECT_EQ(answer.second, 0u) << "the caller resumed on its own shard";
}

TEST_F(run_on_test, coroutine_runs_on_the_target_shard) {
  auto ran_on = block_on(shards[0], [&]() -> awaitable<unsigned> {
    co_return co_await run_on(shards[1], []() -> awaitable<unsigned> {
      co_await asio::post(asio::use_awaitable);  // really suspends on the target
      co_return shard::current()->id();
    });
  }());
  EXPECT_EQ(ran_on, 1u);
}

TEST_F(run_on_test, void_function_completes_before_the_caller_resumes) {
  bool touched = false;
  block_on(shards[0], [&]() -> awaitable<void> {
    co_await run_on(shards[1], [&] { touched = shard::current()->id() == 1; });
    EXPECT_TRUE(touched);
  }());
  EXPECT_TRUE(touched);
}

TEST_F(run_on_test, failed_result_reaches_the_caller) {
  auto r = block_on(shards[0], [&]() -> awaitable<result<int>> {
    co_return co_await run_on(shards[1],
                              []() -> result<int> { return fail(base::errc::not_found, "topic persistent://a/b/c"); });
  }());
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error().detail(), "topic persistent://a/b/c");
}

TEST_F(run_on_test, many_concurrent_calls_each_complete_once) {
  constexpr int calls = 2000;
  std::atomic<int> completed{0};
  int on_target = 0;  // touched only by shard 1
  block_on(shards[0], [&]() -> awaitable<void> {
    auto executor = co_await asio::this_coro::executor;
    for (int i = 0; i < calls; ++i) {
      spawn(executor, [&]() -> awaitable<void> {
        co_await run_on(shards[1], [&] { ++on_target; });
        completed.fetch_add(1);
      });
    }
    co_return;
  }());
  // Wait for the condition, not for time: each call posts back to shard 0.
  while (completed.load() < calls) std::this_thread::yield();
  EXPECT_EQ(block_on(shards[1], [&]() -> awaitable<int> { co_return on_target; }()), calls);
}

}  // namespace
}  // namespace magnetar::io
