#include "client/batch_flusher.h"

#include <gtest/gtest.h>

#include <chrono>
#include <condition_variable>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

namespace magnetar::client_detail {
namespace {

using namespace std::chrono_literals;
using clock = batch_flusher::clock;

// An io thread for the flusher, and a record of the flushes it runs.
class batch_flusher_test : public ::testing::Test {
 protected:
  struct flushed {
    std::string name;
    clock::duration after;      // since the test scheduled it
    std::size_t still_waiting;  // batches the flusher held while this one ran
  };

  batch_flusher_test() : _work(asio::make_work_guard(_io)), _thread([this] { _io.run(); }) {}
  ~batch_flusher_test() override {
    _work.reset();
    _io.stop();
    _thread.join();
  }

  void schedule(const std::string& name, clock::duration delay) {
    flusher->schedule(delay, [this, name, start = clock::now()] {
      const auto waiting = flusher->waiting();
      std::lock_guard lock(_mutex);
      _flushed.push_back({name, clock::now() - start, waiting});
      _changed.notify_all();
    });
  }

  std::vector<flushed> wait_for_flushes(std::size_t count) {
    std::unique_lock lock(_mutex);
    _changed.wait(lock, [&] { return _flushed.size() >= count; });
    return _flushed;
  }

  asio::io_context _io;
  asio::executor_work_guard<asio::io_context::executor_type> _work;
  std::shared_ptr<batch_flusher> flusher = std::make_shared<batch_flusher>(_io.get_executor());
  std::thread _thread;
  std::mutex _mutex;
  std::condition_variable _changed;
  std::vector<flushed> _flushed;
};

TEST_F(batch_flusher_test, a_lone_batch_waits_its_whole_delay) {
  schedule("a", 50ms);
  auto done = wait_for_flushes(1);
  EXPECT_GE(done[0].after, 50ms);
}

TEST_F(batch_flusher_test, a_batch_due_within_a_quarter_of_its_delay_goes_with_an_earlier_one) {
  schedule("a", 100ms);
  schedule("b", 120ms);  // may go from 90 ms on: when a goes, at 100 ms or later
  auto done = wait_for_flushes(2);
  EXPECT_EQ(done[0].still_waiting, 0u);
  EXPECT_EQ(done[1].still_waiting, 0u);
}

TEST_F(batch_flusher_test, a_batch_due_later_waits_for_its_own_time) {
  schedule("a", 50ms);
  schedule("c", 400ms);  // not before 300 ms
  auto done = wait_for_flushes(2);
  EXPECT_EQ(done[0].name, "a");
  EXPECT_EQ(done[0].still_waiting, 1u);
  EXPECT_EQ(done[1].name, "c");
  EXPECT_GE(done[1].after, 300ms);
}

TEST_F(batch_flusher_test, a_shorter_delay_scheduled_after_a_longer_one_goes_first) {
  schedule("c", 400ms);
  schedule("a", 50ms);
  auto done = wait_for_flushes(2);
  EXPECT_EQ(done[0].name, "a");
  EXPECT_EQ(done[0].still_waiting, 1u);
  EXPECT_EQ(done[1].name, "c");
}

TEST_F(batch_flusher_test, batches_scheduled_from_many_threads_all_flush) {
  constexpr int threads = 4, per_thread = 200;
  std::vector<std::thread> senders;
  for (int t = 0; t < threads; ++t) {
    senders.emplace_back([this, t] {
      for (int i = 0; i < per_thread; ++i) schedule(std::to_string(t), std::chrono::microseconds(100 * (i % 7)));
    });
  }
  for (auto& s : senders) s.join();
  EXPECT_EQ(wait_for_flushes(threads * per_thread).size(), static_cast<std::size_t>(threads * per_thread));
}

}  // namespace
}  // namespace magnetar::client_detail
