#include "meta/listeners.h"

#include "io/running_shards.h"

#include <gtest/gtest.h>

#include <atomic>
#include <thread>

namespace magnetar::meta {
namespace {

class listeners_test : public ::testing::Test {
 protected:
  // Declared first: destroyed after the shards stop, so no call outlives them.
  std::vector<int> received;  // touched only on shard 0
  std::atomic<int> calls{0};
  io::running_shards shards{1};
  listener_registry<int> registry;

  listener_handle listen() {
    return registry.add(shards[0].executor(), [this](const int& v) {
      received.push_back(v);
      calls.fetch_add(1);
    });
  }
  void wait_for_calls(int n) {
    while (calls.load() < n) std::this_thread::yield();
  }
};

TEST_F(listeners_test, batch_is_delivered_in_order) {
  auto handle = listen();
  registry.publish({1, 2, 3});
  registry.publish({4});
  wait_for_calls(4);
  EXPECT_EQ(received, (std::vector<int>{1, 2, 3, 4}));
}

TEST_F(listeners_test, reset_handle_receives_nothing_more) {
  auto handle = listen();
  handle.reset();
  registry.publish({1});
  shards.drain(0);
  EXPECT_EQ(calls.load(), 0);
  EXPECT_EQ(registry.size(), 0u);
}

TEST_F(listeners_test, batch_posted_before_reset_is_skipped_after_it) {
  auto handle = listen();
  std::atomic<bool> release{false};
  // Hold shard 0 so that the batch is posted but not yet run when the handle goes.
  asio::post(shards[0].executor(), [&] {
    while (!release.load()) std::this_thread::yield();
  });
  registry.publish({1});
  handle.reset();
  release.store(true);
  shards.drain(0);
  EXPECT_EQ(calls.load(), 0);
}

TEST_F(listeners_test, handle_may_outlive_its_registry) {
  auto owned = std::make_unique<listener_registry<int>>();
  auto handle = owned->add(shards[0].executor(), [](const int&) {});
  owned.reset();
  handle.reset();
  EXPECT_FALSE(handle.registered());
}

TEST_F(listeners_test, moved_handle_keeps_the_registration) {
  auto first = listen();
  listener_handle second = std::move(first);
  registry.publish({9});
  wait_for_calls(1);
  EXPECT_EQ(registry.size(), 1u);
}

}  // namespace
}  // namespace magnetar::meta
