// store_test: change notifications and session listeners.
#include "io/run_on.h"
#include "meta/tests/store_suite.h"

#include <gmock/gmock.h>

#include <algorithm>
#include <atomic>
#include <thread>

namespace magnetar::meta::testing {
namespace {

using ::testing::ElementsAre;

notification created(std::string path) { return {notification_type::created, std::move(path)}; }
notification modified(std::string path) { return {notification_type::modified, std::move(path)}; }
notification deleted(std::string path) { return {notification_type::deleted, std::move(path)}; }
notification children_changed(std::string path) { return {notification_type::children_changed, std::move(path)}; }

TEST_P(store_test, creating_put_notifies_created_and_parent_children_changed) {
  put_ok("/a");
  auto handle = listen(seen);
  put_ok("/a/b");
  ASSERT_TRUE(seen.wait_for(2));
  EXPECT_THAT(seen.events(), ElementsAre(created("/a/b"), children_changed("/a")));
}

TEST_P(store_test, put_over_an_existing_node_notifies_modified_only) {
  put_ok("/a");
  auto handle = listen(seen);
  put_ok("/a", "new");
  put_ok("/marker");
  ASSERT_TRUE(seen.wait_for(3));
  EXPECT_THAT(seen.events(), ElementsAre(modified("/a"), created("/marker"), children_changed("/")));
}

TEST_P(store_test, automatic_parents_are_notified_outermost_first) {
  auto handle = listen(seen);
  put_ok("/x/y/z");
  ASSERT_TRUE(seen.wait_for(6));
  EXPECT_THAT(seen.events(), ElementsAre(created("/x"), children_changed("/"), created("/x/y"), children_changed("/x"),
                                         created("/x/y/z"), children_changed("/x/y")));
}

TEST_P(store_test, remove_notifies_deleted_and_parent_children_changed) {
  put_ok("/a/b");
  auto handle = listen(seen);
  ASSERT_TRUE(run(s->remove("/a/b", std::nullopt)));
  ASSERT_TRUE(seen.wait_for(2));
  EXPECT_THAT(seen.events(), ElementsAre(deleted("/a/b"), children_changed("/a")));
}

TEST_P(store_test, remove_recursive_notifies_every_deletion_leaves_first) {
  put_ok("/t/a/b");
  auto handle = listen(seen);
  ASSERT_TRUE(run(s->remove_recursive("/t")));
  ASSERT_TRUE(seen.wait_for(6));
  EXPECT_THAT(seen.events(), ElementsAre(deleted("/t/a/b"), children_changed("/t/a"), deleted("/t/a"),
                                         children_changed("/t"), deleted("/t"), children_changed("/")));
}

TEST_P(store_test, failed_operations_notify_nothing) {
  put_ok("/a/b");
  auto handle = listen(seen);
  EXPECT_FALSE(run(s->put("/a", "x", 7)));
  EXPECT_FALSE(run(s->remove("/a", std::nullopt)));
  EXPECT_FALSE(run(s->remove("/missing", std::nullopt)));
  put_ok("/marker");
  ASSERT_TRUE(seen.wait_for(2));
  EXPECT_THAT(seen.events(), ElementsAre(created("/marker"), children_changed("/")));
}

TEST_P(store_test, close_session_notifies_the_deletion_of_its_ephemeral_nodes) {
  put_ok("/live");
  auto session = open_session_ok();
  ASSERT_TRUE(run(s->put("/live/b1", "", std::nullopt, {.ephemeral = session})));
  auto handle = listen(seen);
  ASSERT_TRUE(run(s->close_session(session)));
  ASSERT_TRUE(seen.wait_for(2));
  EXPECT_THAT(seen.events(), ElementsAre(deleted("/live/b1"), children_changed("/live")));
}

TEST_P(store_test, notifications_follow_the_order_of_the_writes) {
  auto handle = listen(seen);
  std::vector<notification> expected;
  for (int i = 0; i < 20; ++i) {
    const auto path = "/n" + std::to_string(i);
    put_ok(path);
    put_ok(path);
    expected.push_back(created(path));
    expected.push_back(children_changed("/"));
    expected.push_back(modified(path));
  }
  ASSERT_TRUE(seen.wait_for(expected.size()));
  EXPECT_EQ(seen.events(), expected);
}

// With writers on two shards the commit order is the store's choice, but it
// is one order: every listener sees the same sequence.
TEST_P(store_test, listeners_on_different_shards_see_concurrent_writes_in_the_same_order) {
  auto first = listen(seen, 0);
  auto second = listen(seen_too, 1);
  constexpr int writers = 8, puts_each = 5;
  std::atomic<int> finished{0};
  for (int w = 0; w < writers; ++w) {
    io::spawn(shards[w % 2].executor(), [&, w]() -> awaitable<void> {
      for (int i = 0; i < puts_each; ++i) {
        auto r = co_await s->put("/w" + std::to_string(w), std::to_string(i), std::nullopt);
        EXPECT_TRUE(r) << r.error();
      }
      finished.fetch_add(1);
    });
  }
  while (finished.load() < writers) std::this_thread::yield();
  // A marker written last: once both listeners have it, they have the rest
  // (ZooKeeper may fold the children_changed of racing creates into one, so
  // counting events would not tell).
  put_ok("/zz-marker");
  const auto has_marker = [](const notification_log& log) {
    return [&log] {
      for (const auto& n : log.events()) {
        if (n == notification{notification_type::created, "/zz-marker"}) return true;
      }
      return false;
    };
  };
  ASSERT_TRUE(seen.wait_until(has_marker(seen)));
  ASSERT_TRUE(seen_too.wait_until(has_marker(seen_too)));
  // Compared up to the marker: the marker's own children_changed may still be on its
  // way to one listener (seen flaky in CI).
  const auto up_to_marker = [](std::vector<notification> events) {
    const auto marker = std::find(events.begin(), events.end(), notification{notification_type::created, "/zz-marker"});
    events.erase(marker + 1, events.end());
    return events;
  };
  const auto first_seen = up_to_marker(seen.events());
  EXPECT_GE(first_seen.size(), std::size_t{writers * puts_each});
  EXPECT_EQ(first_seen, up_to_marker(seen_too.events()));
}

TEST_P(store_test, listener_runs_on_the_shard_it_registered_with) {
  std::atomic<int> ran_on{-1};
  auto handle = s->register_listener(shards[1].executor(), [&](const notification& n) {
    ran_on.store(static_cast<int>(io::shard::current() ? io::shard::current()->id() : 99));
    seen.add(n);
  });
  put_ok("/where");
  ASSERT_TRUE(seen.wait_for(1));
  EXPECT_EQ(ran_on.load(), 1);
}

TEST_P(store_test, destroyed_listener_gets_no_more_notifications) {
  auto kept = listen(seen, 1);
  {
    auto dropped = listen(seen_too, 1);
    put_ok("/before");
    ASSERT_TRUE(seen_too.wait_for(2));
  }
  put_ok("/after");
  ASSERT_TRUE(seen.wait_for(4));
  shards.drain(1);  // anything posted to the dropped listener has run by now
  EXPECT_THAT(seen_too.events(), ElementsAre(created("/before"), children_changed("/")));
}

TEST_P(store_test, listener_registered_before_start_sees_cleanup_of_a_dead_process) {
  if (GetParam().crash_keeps_ephemerals) GTEST_SKIP() << "ephemerals wait for the session to time out here";
  put_ok("/brokers");
  auto session = open_session_ok();
  ASSERT_TRUE(run(s->put("/brokers/b1", "", std::nullopt, {.ephemeral = session})));
  run(s->stop());
  s = location->open(clock);
  auto handle = listen(seen);
  ASSERT_TRUE(run(s->start()));
  ASSERT_TRUE(seen.wait_for(2));
  EXPECT_THAT(seen.events(), ElementsAre(deleted("/brokers/b1"), children_changed("/brokers")));
}

TEST_P(store_test, session_listener_can_be_registered_and_dropped) {
  std::atomic<int> events{0};
  auto handle = s->register_session_listener(shards[1].executor(), [&](const session_event&) { events.fetch_add(1); });
  EXPECT_TRUE(handle.registered());
  handle.reset();
  EXPECT_FALSE(handle.registered());
}

}  // namespace
}  // namespace magnetar::meta::testing
