#include "client/wake_batch.h"

#include <gtest/gtest.h>

#include <chrono>
#include <mutex>
#include <thread>

namespace magnetar::client_detail {
namespace {

struct waiter_state {
  std::mutex mutex;
  std::condition_variable cv;
  bool waiting = false;
  bool woken = false;
};

// Starts a thread blocked on state.cv (with no predicate: only a notification or a
// spurious wake-up ends the wait) and returns once it waits.
std::thread start_waiter(waiter_state& state) {
  std::thread t([&] {
    std::unique_lock lock(state.mutex);
    state.waiting = true;
    state.cv.notify_all();  // to the starter, below
    state.woken = state.cv.wait_for(lock, std::chrono::seconds(60)) == std::cv_status::no_timeout;
  });
  std::unique_lock lock(state.mutex);
  state.cv.wait(lock, [&] { return state.waiting; });
  return t;
}

TEST(wake_batch_test, outside_a_batch_the_waiter_is_woken_at_once) {
  auto owner = std::make_shared<waiter_state>();
  auto t = start_waiter(*owner);
  { std::lock_guard lock(owner->mutex); }  // the waiter is in its wait
  wake_batch::notify_all(owner, owner->cv);
  t.join();
  EXPECT_TRUE(owner->woken);
  EXPECT_EQ(owner.use_count(), 1) << "nothing held back";
}

TEST(wake_batch_test, inside_a_batch_the_waiter_is_woken_when_the_batch_ends) {
  auto owner = std::make_shared<waiter_state>();
  auto t = start_waiter(*owner);
  {
    const wake_batch batch;
    { std::lock_guard lock(owner->mutex); }
    wake_batch::notify_all(owner, owner->cv);
    EXPECT_EQ(owner.use_count(), 2) << "the batch keeps the condition variable's owner";
  }
  t.join();
  EXPECT_TRUE(owner->woken);
  EXPECT_EQ(owner.use_count(), 1);
}

TEST(wake_batch_test, a_batch_notifies_each_condition_variable_once) {
  auto a = std::make_shared<waiter_state>();
  auto b = std::make_shared<waiter_state>();
  const wake_batch batch;
  for (int i = 0; i < 5; ++i) {
    wake_batch::notify_all(a, a->cv);
    wake_batch::notify_all(b, b->cv);
  }
  EXPECT_EQ(a.use_count(), 2);
  EXPECT_EQ(b.use_count(), 2);
}

TEST(wake_batch_test, a_batch_collects_only_on_its_own_thread) {
  auto owner = std::make_shared<waiter_state>();
  const wake_batch batch;
  std::thread([&] { wake_batch::notify_all(owner, owner->cv); }).join();
  EXPECT_EQ(owner.use_count(), 1) << "another thread's notification went out at once";
}

}  // namespace
}  // namespace magnetar::client_detail
