#include "client/st/receive_queue.h"

#include "client/st/position_tracker.h"

#include <gtest/gtest.h>

#include <atomic>
#include <future>
#include <map>
#include <thread>

namespace magnetar::st::detail {
namespace {

using namespace std::chrono_literals;
// Long enough never to pass on a loaded machine when the test is right; a wrong
// implementation shows up as a hang the test timeout reports.
constexpr auto forever = 60s;

void push(receive_queue<int>& q, int v) { ASSERT_EQ(q.try_push(v), receive_queue<int>::push_outcome::queued); }

TEST(st_receive_queue, receives_in_the_order_pushed) {
  receive_queue<int> q;
  for (int i = 0; i < 5; ++i) push(q, i);
  for (int i = 0; i < 5; ++i) {
    auto r = q.receive(forever);
    ASSERT_TRUE(r) << r.error();
    EXPECT_EQ(r.value(), i);
  }
}

TEST(st_receive_queue, receive_times_out_on_an_empty_queue) {
  receive_queue<int> q;
  auto r = q.receive(10ms);
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error(), client_errc::timeout);
}

TEST(st_receive_queue, a_full_queue_refuses_a_push) {
  receive_queue<int> q(2);
  push(q, 1);
  push(q, 2);
  int v = 3;
  EXPECT_EQ(q.try_push(v), receive_queue<int>::push_outcome::full);
  EXPECT_EQ(q.size(), 2u);
}

TEST(st_receive_queue, room_is_signalled_at_once_when_there_is_some) {
  receive_queue<int> q(2);
  push(q, 1);
  std::optional<bool> room;
  q.when_room([&](bool open) { room = open; });
  EXPECT_EQ(room, true);
}

TEST(st_receive_queue, a_receive_wakes_the_loops_waiting_for_room) {
  receive_queue<int> q(1);
  push(q, 1);
  int calls = 0;
  std::optional<bool> first, second;
  q.when_room([&](bool open) {
    first = open;
    ++calls;
  });
  q.when_room([&](bool open) {
    second = open;
    ++calls;
  });
  EXPECT_EQ(calls, 0);
  ASSERT_TRUE(q.receive(forever));
  EXPECT_EQ(first, true);
  EXPECT_EQ(second, true);
  EXPECT_EQ(calls, 2);
}

TEST(st_receive_queue, a_waiting_receive_async_takes_the_item_even_when_full) {
  receive_queue<int> q(1);
  std::optional<int> got;
  q.receive_async([&](result<int> r) { got = r.value(); });
  push(q, 7);
  EXPECT_EQ(got, 7);
  EXPECT_EQ(q.size(), 0u);
}

TEST(st_receive_queue, receive_async_completes_at_once_when_an_item_is_queued) {
  receive_queue<int> q;
  push(q, 3);
  std::optional<int> got;
  q.receive_async([&](result<int> r) { got = r.value(); });
  EXPECT_EQ(got, 3);
}

TEST(st_receive_queue, stamp_runs_before_the_item_is_visible) {
  receive_queue<int> q;
  int v = 1;
  EXPECT_EQ(q.try_push(v, [](int& x) { x *= 10; }), receive_queue<int>::push_outcome::queued);
  EXPECT_EQ(q.receive(forever).value(), 10);
  receive_queue<int> full(1);
  int a = 1, b = 2;
  full.try_push(a);
  bool stamped = false;
  EXPECT_EQ(full.try_push(b, [&](int&) { stamped = true; }), receive_queue<int>::push_outcome::full);
  EXPECT_FALSE(stamped);
}

TEST(st_receive_queue, receive_multi_returns_at_once_when_max_are_queued) {
  receive_queue<int> q;
  for (int i = 0; i < 5; ++i) push(q, i);
  auto r = q.receive_multi(3, forever);
  ASSERT_TRUE(r) << r.error();
  EXPECT_EQ(r.value(), (std::vector<int>{0, 1, 2}));
  EXPECT_EQ(q.size(), 2u);
}

TEST(st_receive_queue, receive_multi_returns_a_short_batch_at_the_deadline) {
  receive_queue<int> q;
  push(q, 1);
  push(q, 2);
  auto r = q.receive_multi(10, 20ms);
  ASSERT_TRUE(r) << r.error();
  EXPECT_EQ(r.value(), (std::vector<int>{1, 2}));
}

TEST(st_receive_queue, receive_multi_returns_an_empty_batch_as_success) {
  receive_queue<int> q;
  auto r = q.receive_multi(10, 10ms);
  ASSERT_TRUE(r) << r.error();
  EXPECT_TRUE(r.value().empty());
}

TEST(st_receive_queue, receive_multi_waits_for_more_until_full) {
  receive_queue<int> q;
  push(q, 1);
  auto batch = std::async(std::launch::async, [&] { return q.receive_multi(3, forever); });
  push(q, 2);
  push(q, 3);
  auto r = batch.get();
  ASSERT_TRUE(r) << r.error();
  // The receiver may have woken between the pushes only if it had 3 already.
  EXPECT_EQ(r.value(), (std::vector<int>{1, 2, 3}));
}

TEST(st_receive_queue, receive_multi_larger_than_the_capacity_returns_a_full_queue) {
  receive_queue<int> q(2);
  push(q, 1);
  push(q, 2);
  auto r = q.receive_multi(5, forever);
  ASSERT_TRUE(r) << r.error();
  EXPECT_EQ(r.value().size(), 2u);
}

TEST(st_receive_queue, receive_multi_of_nothing_is_invalid) {
  receive_queue<int> q;
  auto r = q.receive_multi(0, 1ms);
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error(), client_errc::invalid_argument);
}

TEST(st_receive_queue, receive_multi_wakes_the_loops_waiting_for_room) {
  receive_queue<int> q(2);
  push(q, 1);
  push(q, 2);
  std::optional<bool> room;
  q.when_room([&](bool open) { room = open; });
  ASSERT_TRUE(q.receive_multi(2, forever));
  EXPECT_EQ(room, true);
}

TEST(st_receive_queue, close_fails_a_blocked_receive_with_already_closed) {
  receive_queue<int> q;
  auto waiting = std::async(std::launch::async, [&] { return q.receive(); });
  q.close();
  auto r = waiting.get();
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error(), client_errc::already_closed);
}

TEST(st_receive_queue, close_fails_a_blocked_receive_multi) {
  receive_queue<int> q;
  auto waiting = std::async(std::launch::async, [&] { return q.receive_multi(5, forever); });
  q.close();
  auto r = waiting.get();
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error(), client_errc::already_closed);
}

TEST(st_receive_queue, close_fails_async_receivers_and_tells_the_loops_waiting_for_room) {
  receive_queue<int> q(1);
  std::optional<result<int>> got;
  q.receive_async([&](result<int> r) { got = std::move(r); });
  q.close();
  ASSERT_TRUE(got);
  ASSERT_FALSE(*got);
  EXPECT_EQ(got->error(), client_errc::already_closed);

  receive_queue<int> full(1);
  push(full, 1);
  std::optional<bool> room;
  full.when_room([&](bool open) { room = open; });
  full.close();
  EXPECT_EQ(room, false);
}

TEST(st_receive_queue, after_close_everything_fails_and_nothing_is_queued) {
  receive_queue<int> q;
  push(q, 1);
  q.close(error(client_errc::topic_not_found, "gone"));
  int v = 2;
  EXPECT_EQ(q.try_push(v), receive_queue<int>::push_outcome::closed);
  auto r = q.receive(forever);
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error(), client_errc::topic_not_found);
  EXPECT_FALSE(q.receive_multi(1, forever));
  std::optional<bool> room;
  q.when_room([&](bool open) { room = open; });
  EXPECT_EQ(room, false);
  EXPECT_EQ(q.size(), 0u);
}

TEST(st_receive_queue, remove_if_drops_items_and_makes_room) {
  receive_queue<int> q(3);
  for (int i = 1; i <= 3; ++i) push(q, i);
  std::optional<bool> room;
  q.when_room([&](bool open) { room = open; });
  EXPECT_EQ(q.remove_if([](int v) { return v % 2 == 1; }), 2u);
  EXPECT_EQ(room, true);
  EXPECT_EQ(q.receive(forever).value(), 2);
}

TEST(st_receive_queue, a_coroutine_waits_for_room) {
  receive_queue<int> q(1);
  push(q, 1);
  asio::io_context io;
  std::optional<bool> room;
  asio::co_spawn(
      io, [&]() -> awaitable<void> { room = co_await q.wait_for_room(); }, asio::detached);
  io.run_one();  // starts the coroutine, which parks on the full queue
  EXPECT_FALSE(room);
  ASSERT_TRUE(q.receive(forever));
  io.restart();
  io.run();
  EXPECT_EQ(room, true);
}

// Segment loops push concurrently, each stamping its item with the tracker's position
// vector: a vector must never name an item queued after the one that carries it.
TEST(st_receive_queue, stamped_position_vectors_follow_the_queue_order) {
  struct item {
    std::int64_t segment;
    magnetar::message_id id;
    std::shared_ptr<const position_vector> vector;
  };
  receive_queue<item> q(10000);
  position_tracker tracker;
  constexpr int per_segment = 500;
  std::vector<std::thread> loops;
  for (std::int64_t s = 0; s < 4; ++s) {
    loops.emplace_back([&, s] {
      for (int i = 0; i < per_segment; ++i) {
        item it{s, magnetar::message_id(s, i), nullptr};
        q.try_push(it, [&](item& x) { x.vector = tracker.deliver(x.segment, x.id); });
      }
    });
  }
  for (auto& t : loops) t.join();
  std::map<std::int64_t, magnetar::message_id> seen;
  for (int n = 0; n < 4 * per_segment; ++n) {
    auto r = q.receive(forever);
    ASSERT_TRUE(r);
    seen[r.value().segment] = r.value().id;
    for (const auto& [segment, id] : *r.value().vector) {
      ASSERT_TRUE(seen.contains(segment));
      EXPECT_LE(id, seen[segment]) << "segment " << segment;
    }
    EXPECT_EQ(r.value().vector->at(r.value().segment), r.value().id);
  }
}

}  // namespace
}  // namespace magnetar::st::detail
