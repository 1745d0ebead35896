// The st SDK end to end against an in-process standalone broker: the scenarios
// and upstream's st producer, queue and stream consumer E2E tests (their admin calls:
// PUT /admin/v2/scalable/{t}/{ns}/{topic}?numInitialSegments=N, POST .../split/{id},
// POST .../merge/{a}/{b}).
#include "client/tests/client_test_fixture.h"
#include "http/client.h"
#include "magnetar/st/client.h"

#include <fmt/format.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <set>
#include <string>
#include <vector>

namespace magnetar::st {
namespace {

using namespace std::chrono_literals;

class st_e2e_test : public client_testing::client_test {
 protected:
  // A closed stream consumer's segments move on after this (the tests reopen and leave).
  st_e2e_test() { broker.scalable_topic_consumer_session_grace_period = std::chrono::seconds(1); }

  void SetUp() override {
    client_test::SetUp();
    auto c = client::create(service_url(), config);
    ASSERT_TRUE(c) << c.error();
    st.emplace(std::move(c).value());
  }
  void TearDown() override {
    if (st) (void)st->close();
    st.reset();
    client_test::TearDown();
  }

  // topic://public/default/<test name>
  static std::string scalable_topic() {
    return "topic://public/default/" + std::string(::testing::UnitTest::GetInstance()->current_test_info()->name());
  }
  static std::string admin_path() {
    return "/admin/v2/scalable/public/default/" +
           std::string(::testing::UnitTest::GetInstance()->current_test_info()->name());
  }

  // A 2xx answer, retried for a while (as upstream's tests: the controller may be starting).
  void admin(const std::string& method, const std::string& path) {
    for (int attempt = 0; attempt < 100; ++attempt) {
      auto r = magnetar::http::call(magnetar::http::url{.host = "127.0.0.1", .port = *broker.web_service_port}, method,
                                    path);
      ASSERT_TRUE(r) << r.error();
      if (r.value().status < 300) return;
      if (attempt == 99) FAIL() << method << " " << path << ": " << r.value().status << " " << r.value().body;
      std::this_thread::sleep_for(100ms);
    }
  }
  void create(int segments) { admin("PUT", fmt::format("{}?numInitialSegments={}", admin_path(), segments)); }
  void split(int segment) { admin("POST", fmt::format("{}/split/{}", admin_path(), segment)); }
  void merge(int a, int b) { admin("POST", fmt::format("{}/merge/{}/{}", admin_path(), a, b)); }

  static magnetar::message keyed(const std::string& key, const std::string& payload) {
    return message_builder().key(key).payload(payload).build();
  }
  // Consumers reopened under one name get their registration (and segments) back.
  static stream_consumer_config earliest_stream(std::string name = "e2e-stream") {
    stream_consumer_config c;
    c.position = initial_position::earliest;
    c.consumer_name = std::move(name);
    return c;
  }
  static queue_consumer_config earliest_queue() {
    queue_consumer_config c;
    c.position = initial_position::earliest;
    return c;
  }

  std::optional<client> st;
};

// --- producer (upstream's StProducerE2ETest) ---

TEST_F(st_e2e_test, produces_keyed_and_keyless) {
  ASSERT_NO_FATAL_FAILURE(create(1));
  auto p = st->create_producer(scalable_topic());
  ASSERT_TRUE(p) << p.error();
  for (int i = 0; i < 20; ++i) {
    auto id = p.value().send(keyed("key-" + std::to_string(i % 4), "m" + std::to_string(i)));
    ASSERT_TRUE(id) << id.error();
    EXPECT_GE(id.value().segment_id(), 0);
  }
  for (int i = 0; i < 5; ++i) {
    auto id = p.value().send(message_builder().payload("keyless").build());
    ASSERT_TRUE(id) << id.error();
    EXPECT_GE(id.value().segment_id(), 0);
  }
  EXPECT_GE(p.value().last_sequence_id(), 24);
  EXPECT_TRUE(p.value().flush());
  EXPECT_TRUE(p.value().close());
}

TEST_F(st_e2e_test, async_sends_all_complete) {
  ASSERT_NO_FATAL_FAILURE(create(1));
  auto p = st->create_producer(scalable_topic());
  ASSERT_TRUE(p) << p.error();
  std::vector<std::future<result<message_id>>> sends;
  for (int i = 0; i < 50; ++i) sends.push_back(p.value().send_future(keyed("k" + std::to_string(i % 8), "x")));
  for (auto& s : sends) {
    auto id = s.get();
    ASSERT_TRUE(id) << id.error();
    EXPECT_GE(id.value().segment_id(), 0);
  }
}

TEST_F(st_e2e_test, produces_across_split_segments) {
  ASSERT_NO_FATAL_FAILURE(create(1));
  ASSERT_NO_FATAL_FAILURE(split(0));
  auto p = st->create_producer(scalable_topic());
  ASSERT_TRUE(p) << p.error();
  std::set<std::int64_t> segments;
  for (int i = 0; i < 300; ++i) {
    auto id = p.value().send(keyed("key-" + std::to_string(i), "x"));
    ASSERT_TRUE(id) << id.error();
    segments.insert(id.value().segment_id());
  }
  EXPECT_GE(segments.size(), 2u);
  EXPECT_FALSE(segments.contains(0));
}

TEST_F(st_e2e_test, produces_after_a_merge) {
  ASSERT_NO_FATAL_FAILURE(create(1));
  ASSERT_NO_FATAL_FAILURE(split(0));
  ASSERT_NO_FATAL_FAILURE(merge(1, 2));
  auto p = st->create_producer(scalable_topic());
  ASSERT_TRUE(p) << p.error();
  std::int64_t merged = -1;
  for (int i = 0; i < 100 && merged <= 2; ++i) {
    auto id = p.value().send(message_builder().payload("keyless").build());
    ASSERT_TRUE(id) << id.error();
    merged = id.value().segment_id();
  }
  ASSERT_GT(merged, 2);
  for (int i = 0; i < 30; ++i) {
    auto id = p.value().send(keyed("key-" + std::to_string(i), "x"));
    ASSERT_TRUE(id) << id.error();
    EXPECT_EQ(id.value().segment_id(), merged);
  }
}

TEST_F(st_e2e_test, keeps_producing_across_a_live_split) {
  ASSERT_NO_FATAL_FAILURE(create(1));
  auto p = st->create_producer(scalable_topic());
  ASSERT_TRUE(p) << p.error();
  for (int i = 0; i < 10; ++i) ASSERT_TRUE(p.value().send(keyed("warm-" + std::to_string(i), "x")));
  ASSERT_NO_FATAL_FAILURE(split(0));
  std::vector<std::future<result<message_id>>> sends;
  for (int i = 0; i < 200; ++i) sends.push_back(p.value().send_future(keyed("key-" + std::to_string(i), "x")));
  std::int64_t highest = -1;
  for (auto& s : sends) {
    auto id = s.get();
    ASSERT_TRUE(id) << id.error();
    highest = std::max(highest, id.value().segment_id());
  }
  EXPECT_GT(highest, 0);
}

// --- queue consumer (upstream's StQueueConsumerE2ETest) ---

TEST_F(st_e2e_test, a_queue_consumer_receives_what_was_produced) {
  ASSERT_NO_FATAL_FAILURE(create(1));
  auto q = st->subscribe_queue(scalable_topic(), "sub", earliest_queue());
  ASSERT_TRUE(q) << q.error();
  auto p = st->create_producer(scalable_topic());
  ASSERT_TRUE(p) << p.error();
  std::set<std::string> sent;
  for (int i = 0; i < 25; ++i) {
    sent.insert("m" + std::to_string(i));
    ASSERT_TRUE(p.value().send(keyed("k" + std::to_string(i % 5), "m" + std::to_string(i))));
  }
  std::set<std::string> got;
  for (int i = 0; i < 25; ++i) {
    auto m = q.value().receive(20s);
    ASSERT_TRUE(m) << m.error();
    EXPECT_GE(m.value().id().segment_id(), 0);
    got.insert(std::string(m.value().payload()));
    EXPECT_TRUE(q.value().acknowledge(m.value()));
  }
  EXPECT_EQ(got, sent);
}

TEST_F(st_e2e_test, a_queue_consumer_reads_parent_and_children_after_a_split) {
  ASSERT_NO_FATAL_FAILURE(create(1));
  auto p = st->create_producer(scalable_topic());
  ASSERT_TRUE(p) << p.error();
  std::set<std::string> sent;
  for (int i = 0; i < 30; ++i) {
    sent.insert("a" + std::to_string(i));
    ASSERT_TRUE(p.value().send(keyed("key-" + std::to_string(i), "a" + std::to_string(i))));
  }
  ASSERT_NO_FATAL_FAILURE(split(0));
  for (int i = 30; i < 60; ++i) {
    sent.insert("b" + std::to_string(i));
    ASSERT_TRUE(p.value().send(keyed("key-" + std::to_string(i), "b" + std::to_string(i))));
  }
  auto q = st->subscribe_queue(scalable_topic(), "sub", earliest_queue());
  ASSERT_TRUE(q) << q.error();
  std::set<std::string> got;
  std::set<std::int64_t> segments;
  while (got.size() < sent.size()) {
    auto m = q.value().receive(20s);
    ASSERT_TRUE(m) << m.error();
    got.insert(std::string(m.value().payload()));
    segments.insert(m.value().id().segment_id());
    EXPECT_TRUE(q.value().acknowledge(m.value()));
  }
  EXPECT_EQ(got, sent);
  EXPECT_GE(segments.size(), 2u);
}

// --- stream consumer (the scenarios; upstream's StStreamConsumerE2ETest) ---

TEST_F(st_e2e_test, one_segment_round_trips_in_order_and_one_cumulative_ack_settles_it) {
  ASSERT_NO_FATAL_FAILURE(create(1));
  auto p = st->create_producer(scalable_topic());
  ASSERT_TRUE(p) << p.error();
  auto s = st->subscribe_stream(scalable_topic(), "sub", earliest_stream());
  ASSERT_TRUE(s) << s.error();
  for (int i = 0; i < 25; ++i) ASSERT_TRUE(p.value().send(keyed("k" + std::to_string(i % 3), std::to_string(i))));
  message last;
  for (int i = 0; i < 25; ++i) {
    auto m = s.value().receive(20s);
    ASSERT_TRUE(m) << m.error();
    EXPECT_EQ(m.value().payload(), std::to_string(i));
    EXPECT_EQ(m.value().id().segment_id(), 0);
    last = m.value();
  }
  ASSERT_TRUE(s.value().acknowledge_cumulative(last));
  ASSERT_TRUE(s.value().close());
  auto again = st->subscribe_stream(scalable_topic(), "sub", earliest_stream());
  ASSERT_TRUE(again) << again.error();
  auto none = again.value().receive(3s);
  ASSERT_FALSE(none);
  EXPECT_EQ(none.error(), client_errc::timeout);
}

TEST_F(st_e2e_test, after_a_split_every_parent_message_comes_before_any_child_message) {
  ASSERT_NO_FATAL_FAILURE(create(1));
  {
    // Creates the durable subscription.
    auto s = st->subscribe_stream(scalable_topic(), "sub", earliest_stream());
    ASSERT_TRUE(s) << s.error();
    ASSERT_TRUE(s.value().close());
  }
  auto p = st->create_producer(scalable_topic());
  ASSERT_TRUE(p) << p.error();
  std::set<std::string> before, after;
  for (int i = 0; i < 60; ++i) {
    before.insert("p" + std::to_string(i));
    ASSERT_TRUE(p.value().send(keyed("key-" + std::to_string(i % 10), "p" + std::to_string(i))));
  }
  ASSERT_NO_FATAL_FAILURE(split(0));
  for (int i = 0; i < 40; ++i) {
    after.insert("c" + std::to_string(i));
    ASSERT_TRUE(p.value().send(keyed("key-" + std::to_string(i % 10), "c" + std::to_string(i))));
  }
  auto s = st->subscribe_stream(scalable_topic(), "sub", earliest_stream());
  ASSERT_TRUE(s) << s.error();
  std::set<std::string> got_before, got_after;
  bool child_seen = false;
  for (int i = 0; i < 100; ++i) {
    auto m = s.value().receive(30s);
    ASSERT_TRUE(m) << m.error() << " after " << i << " messages";
    const std::string payload(m.value().payload());
    if (m.value().id().segment_id() == 0) {
      EXPECT_FALSE(child_seen) << payload << " from the parent after a child's message";
      got_before.insert(payload);
    } else {
      child_seen = true;
      got_after.insert(payload);
    }
    // Acking as we go drains the parent, which lets the controller assign the children.
    ASSERT_TRUE(s.value().acknowledge_cumulative(m.value()));
  }
  EXPECT_EQ(got_before, before);
  EXPECT_EQ(got_after, after);
}

TEST_F(st_e2e_test, one_cumulative_ack_of_the_last_message_advances_both_initial_segments) {
  ASSERT_NO_FATAL_FAILURE(create(2));
  auto p = st->create_producer(scalable_topic());
  ASSERT_TRUE(p) << p.error();
  for (int i = 0; i < 60; ++i) ASSERT_TRUE(p.value().send(keyed("key-" + std::to_string(i), std::to_string(i))));
  auto s = st->subscribe_stream(scalable_topic(), "sub", earliest_stream());
  ASSERT_TRUE(s) << s.error();
  std::vector<message> got;
  std::set<std::int64_t> segments;
  while (got.size() < 60) {
    auto batch = s.value().receive_multi(20, 5s);
    ASSERT_TRUE(batch) << batch.error();
    ASSERT_FALSE(batch.value().empty()) << "after " << got.size() << " messages";
    for (auto& m : batch.value()) {
      segments.insert(m.id().segment_id());
      got.push_back(std::move(m));
    }
  }
  EXPECT_GE(segments.size(), 2u);
  ASSERT_TRUE(s.value().acknowledge_cumulative(got.back()));
  ASSERT_TRUE(s.value().close());
  auto again = st->subscribe_stream(scalable_topic(), "sub", earliest_stream());
  ASSERT_TRUE(again) << again.error();
  auto none = again.value().receive(3s);
  ASSERT_FALSE(none);
  EXPECT_EQ(none.error(), client_errc::timeout);
}

TEST_F(st_e2e_test, after_a_merge_every_parent_message_comes_before_any_child_message) {
  ASSERT_NO_FATAL_FAILURE(create(2));
  {
    auto s = st->subscribe_stream(scalable_topic(), "sub", earliest_stream());
    ASSERT_TRUE(s) << s.error();
    ASSERT_TRUE(s.value().close());
  }
  auto p = st->create_producer(scalable_topic());
  ASSERT_TRUE(p) << p.error();
  for (int i = 0; i < 40; ++i) ASSERT_TRUE(p.value().send(keyed("key-" + std::to_string(i), "p" + std::to_string(i))));
  ASSERT_NO_FATAL_FAILURE(merge(0, 1));
  for (int i = 0; i < 20; ++i) ASSERT_TRUE(p.value().send(keyed("key-" + std::to_string(i), "c" + std::to_string(i))));
  auto s = st->subscribe_stream(scalable_topic(), "sub", earliest_stream());
  ASSERT_TRUE(s) << s.error();
  bool child_seen = false;
  std::size_t parents = 0, children = 0;
  for (int i = 0; i < 60; ++i) {
    auto m = s.value().receive(30s);
    ASSERT_TRUE(m) << m.error() << " after " << i << " messages";
    if (m.value().id().segment_id() <= 1) {
      EXPECT_FALSE(child_seen);
      ++parents;
    } else {
      child_seen = true;
      ++children;
    }
    ASSERT_TRUE(s.value().acknowledge_cumulative(m.value()));
  }
  EXPECT_EQ(parents, 40u);
  EXPECT_EQ(children, 20u);
}

TEST_F(st_e2e_test, two_stream_consumers_rebalance_when_one_leaves) {
  ASSERT_NO_FATAL_FAILURE(create(2));
  auto a = st->subscribe_stream(scalable_topic(), "sub", earliest_stream("a"));
  ASSERT_TRUE(a) << a.error();
  auto b = st->subscribe_stream(scalable_topic(), "sub", earliest_stream("b"));
  ASSERT_TRUE(b) << b.error();
  auto p = st->create_producer(scalable_topic());
  ASSERT_TRUE(p) << p.error();
  auto produce = [&](const std::string& prefix) {
    for (int i = 0; i < 40; ++i) {
      ASSERT_TRUE(p.value().send(keyed("key-" + std::to_string(i), prefix + std::to_string(i))));
    }
  };
  ASSERT_NO_FATAL_FAILURE(produce("first-"));
  // Each reads one of the two segments.
  std::map<std::string, std::set<std::int64_t>> segments_of;
  std::size_t received = 0;
  for (int rounds = 0; received < 40 && rounds < 200; ++rounds) {
    for (auto* c : {&a.value(), &b.value()}) {
      auto m = c->receive(100ms);
      if (!m) continue;
      ++received;
      segments_of[c->consumer_name()].insert(m.value().id().segment_id());
      ASSERT_TRUE(c->acknowledge_cumulative(m.value()));
    }
  }
  ASSERT_EQ(received, 40u);
  EXPECT_EQ(segments_of["a"].size(), 1u);
  EXPECT_EQ(segments_of["b"].size(), 1u);
  ASSERT_TRUE(b.value().close());
  // After b's grace period, a reads both segments.
  ASSERT_NO_FATAL_FAILURE(produce("second-"));
  std::set<std::string> second;
  std::set<std::int64_t> second_segments;
  while (second.size() < 40) {
    auto m = a.value().receive(30s);
    ASSERT_TRUE(m) << m.error() << " with " << second.size() << " of the second 40";
    const std::string payload(m.value().payload());
    if (payload.starts_with("second-")) {
      second.insert(payload);
      second_segments.insert(m.value().id().segment_id());
    }
    ASSERT_TRUE(a.value().acknowledge_cumulative(m.value()));
  }
  EXPECT_EQ(second_segments.size(), 2u);
}

}  // namespace
}  // namespace magnetar::st
