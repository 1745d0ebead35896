// The SDK on a terminated topic: producers fail with topic_terminated (and stop trying),
// consumers drain what is left and then learn the end instead of waiting forever.
#include "client/tests/client_test_fixture.h"
#include "http/client.h"

#include <future>
#include <mutex>
#include <vector>

namespace magnetar::client_testing {
namespace {

using namespace std::chrono_literals;

class terminated_topic : public client_test {
 protected:
  void terminate() {
    const std::string name = topic();
    const std::string path = "/admin/v2/persistent/public/default/" + name.substr(name.rfind('/') + 1) + "/terminate";
    auto r =
        magnetar::http::call(magnetar::http::url{.host = "127.0.0.1", .port = *broker.web_service_port}, "POST", path);
    ASSERT_TRUE(r) << r.error();
    ASSERT_EQ(r.value().status, 200) << r.value().body;
  }
  static consumer_config from_earliest() {
    consumer_config c;
    c.position = initial_position::earliest;
    return c;
  }
};

TEST_F(terminated_topic, a_producer_fails_with_topic_terminated_and_stops) {
  auto p = sdk->create_producer(topic());
  ASSERT_TRUE(p) << p.error();
  ASSERT_TRUE(p.value().send(text("before")));
  terminate();
  // The broker closed the producer; its reconnect is refused for good.
  auto late = p.value().send(text("late"));
  ASSERT_FALSE(late);
  EXPECT_EQ(late.error(), client_errc::topic_terminated) << late.error();
  ASSERT_TRUE(eventually([&] { return !p.value().is_connected(); }));
  auto later = p.value().send(text("later"));
  ASSERT_FALSE(later);
  EXPECT_EQ(later.error(), client_errc::topic_terminated);
  EXPECT_TRUE(p.value().close());
}

TEST_F(terminated_topic, a_new_producer_is_refused) {
  ASSERT_TRUE(sdk->create_producer(topic()));
  terminate();
  auto p = sdk->create_producer(topic());
  ASSERT_FALSE(p);
  EXPECT_EQ(p.error(), client_errc::topic_terminated) << p.error();
}

TEST_F(terminated_topic, sends_racing_the_termination_are_stored_or_fail_as_terminated) {
  producer_config unbatched;
  unbatched.batching_enabled = false;
  auto p = sdk->create_producer(topic(), unbatched);
  ASSERT_TRUE(p) << p.error();
  constexpr int count = 500;
  std::mutex mutex;
  std::vector<result<message_id>> outcomes;
  std::promise<void> all;
  for (int i = 0; i < count; ++i) {
    p.value().send_async(text("m" + std::to_string(i)), [&](result<message_id> r) {
      std::lock_guard lock(mutex);
      outcomes.push_back(std::move(r));
      if (outcomes.size() == static_cast<std::size_t>(count)) all.set_value();
    });
    if (i == count / 4) terminate();
  }
  ASSERT_EQ(all.get_future().wait_for(60s), std::future_status::ready);
  int stored = 0;
  for (const auto& r : outcomes) {
    if (r) {
      ++stored;
    } else {
      EXPECT_EQ(r.error(), client_errc::topic_terminated) << r.error();
    }
  }
  // What was stored is on the topic, and nothing more.
  auto c = sdk->subscribe(topic(), "check", from_earliest());
  ASSERT_TRUE(c) << c.error();
  for (int i = 0; i < stored; ++i) {
    auto m = c.value().receive(10s);
    ASSERT_TRUE(m) << m.error();
    EXPECT_EQ(m.value().payload(), "m" + std::to_string(i));
    ASSERT_TRUE(c.value().acknowledge(m.value()));
  }
  auto end = c.value().receive(30s);
  ASSERT_FALSE(end);
  EXPECT_EQ(end.error(), client_errc::topic_terminated);
}

TEST_F(terminated_topic, a_consumer_drains_then_receive_returns_topic_terminated) {
  auto p = sdk->create_producer(topic());
  ASSERT_TRUE(p) << p.error();
  auto c = sdk->subscribe(topic(), "sub", from_earliest());
  ASSERT_TRUE(c) << c.error();
  for (int i = 0; i < 5; ++i) ASSERT_TRUE(p.value().send(text("m" + std::to_string(i))));
  terminate();
  for (int i = 0; i < 5; ++i) {
    auto m = c.value().receive(10s);
    ASSERT_TRUE(m) << m.error();
    EXPECT_EQ(m.value().payload(), "m" + std::to_string(i));
    ASSERT_TRUE(c.value().acknowledge(m.value()));
  }
  // Not a timeout: the broker says the end was reached once the acks are in.
  auto end = c.value().receive(30s);
  ASSERT_FALSE(end);
  EXPECT_EQ(end.error(), client_errc::topic_terminated) << end.error();
  EXPECT_TRUE(c.value().has_reached_end_of_topic());
  // Still so for the next receive, which doesn't wait.
  EXPECT_EQ(c.value().receive().error(), client_errc::topic_terminated);
  EXPECT_TRUE(c.value().close());
}

TEST_F(terminated_topic, a_waiting_receive_async_learns_the_end) {
  auto p = sdk->create_producer(topic());
  ASSERT_TRUE(p) << p.error();
  auto c = sdk->subscribe(topic(), "sub", from_earliest());
  ASSERT_TRUE(c) << c.error();
  ASSERT_TRUE(p.value().send(text("only")));
  auto m = c.value().receive(10s);
  ASSERT_TRUE(m) << m.error();
  ASSERT_TRUE(c.value().acknowledge(m.value()));
  EXPECT_FALSE(c.value().has_reached_end_of_topic());
  std::promise<result<message>> next;
  c.value().receive_async([&](result<message> r) { next.set_value(std::move(r)); });
  terminate();
  auto got = next.get_future();
  ASSERT_EQ(got.wait_for(30s), std::future_status::ready);
  auto r = got.get();
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error(), client_errc::topic_terminated);
  EXPECT_TRUE(c.value().has_reached_end_of_topic());
}

}  // namespace
}  // namespace magnetar::client_testing
