// The st SDK (client, producer, queue and stream consumers) against fake_st_broker: what
// goes on the wire and back, without a real broker.
#include "client/st/segment_layout.h"
#include "client/st/segment_router.h"
#include "client/st/tests/fake_st_broker.h"
#include "magnetar/errc.h"
#include "magnetar/st/client.h"

#include <gtest/gtest.h>

#include <future>
#include <map>
#include <set>
#include <string>
#include <vector>

namespace magnetar::st {
namespace {

using namespace std::chrono_literals;
using detail::segment_layout;
using testing::fake_st_broker;

const std::string topic = "topic://public/default/orders";

proto::SegmentInfoProto* add_segment(proto::ScalableTopicDAG& dag, std::uint64_t id, std::uint32_t start,
                                     std::uint32_t end, bool sealed = false) {
  auto* s = dag.add_segments();
  s->set_segment_id(id);
  s->set_hash_start(start);
  s->set_hash_end(end);
  s->set_state(sealed ? proto::SEALED : proto::ACTIVE);
  return s;
}

std::string segment_topic(std::uint64_t id, std::uint32_t start, std::uint32_t end) {
  return segment_layout::segment_topic_name(topic, start, end, id);
}

proto::ScalableTopicDAG one_segment() {
  proto::ScalableTopicDAG dag;
  add_segment(dag, 0, 0, 0xFFFF);
  return dag;
}

proto::ScalableTopicDAG two_segments() {
  proto::ScalableTopicDAG dag;
  add_segment(dag, 0, 0, 0x7FFF);
  add_segment(dag, 1, 0x8000, 0xFFFF);
  return dag;
}

// Segment 0 split into 1 and 2.
proto::ScalableTopicDAG split_of_zero() {
  proto::ScalableTopicDAG dag;
  dag.set_epoch(1);
  auto* root = add_segment(dag, 0, 0, 0xFFFF, true);
  root->add_child_ids(1);
  root->add_child_ids(2);
  add_segment(dag, 1, 0, 0x7FFF)->add_parent_ids(0);
  add_segment(dag, 2, 0x8000, 0xFFFF)->add_parent_ids(0);
  return dag;
}

proto::ScalableAssignedSegment* assign(proto::ScalableConsumerAssignment& a, std::uint64_t id, std::uint32_t start,
                                       std::uint32_t end) {
  auto* s = a.add_segments();
  s->set_segment_id(id);
  s->set_hash_start(start);
  s->set_hash_end(end);
  s->set_segment_topic(segment_topic(id, start, end));
  return s;
}

class st_client_test : public ::testing::Test {
 protected:
  void SetUp() override {
    config.operation_timeout = 10s;
    config.initial_backoff = 20ms;
    config.max_backoff = 200ms;
  }
  client make_client() {
    auto c = client::create(broker.url(), config);
    EXPECT_TRUE(c) << c.error();
    return std::move(c).value();
  }
  static producer_config unbatched() {
    producer_config p;
    p.batching_enabled = false;
    return p;
  }

  fake_st_broker broker;
  client_config config;
};

TEST_F(st_client_test, a_producer_routes_each_key_to_the_segment_covering_its_hash) {
  broker.set_layout(topic, two_segments());
  auto c = make_client();
  auto p = c.create_producer(topic, unbatched());
  ASSERT_TRUE(p) << p.error();
  for (int i = 0; i < 20; ++i) {
    const std::string key = "key-" + std::to_string(i);
    auto id = p.value().send(message_builder().key(key).payload("m" + std::to_string(i)).build());
    ASSERT_TRUE(id) << id.error();
    const std::int64_t expected = detail::segment_hash(key) <= 0x7FFF ? 0 : 1;
    EXPECT_EQ(id.value().segment_id(), expected) << key;
    EXPECT_EQ(id.value().topic_name(), topic);
  }
  for (const auto& m : broker.stored_messages()) {
    const bool low = detail::segment_hash(m.key) <= 0x7FFF;
    EXPECT_EQ(m.topic, low ? segment_topic(0, 0, 0x7FFF) : segment_topic(1, 0x8000, 0xFFFF)) << m.key;
  }
  EXPECT_TRUE(p.value().close());
}

TEST_F(st_client_test, keyless_messages_go_round_robin) {
  broker.set_layout(topic, two_segments());
  auto c = make_client();
  auto p = c.create_producer(topic, unbatched());
  ASSERT_TRUE(p) << p.error();
  std::vector<std::int64_t> segments;
  for (int i = 0; i < 4; ++i) {
    auto id = p.value().send(message_builder().payload("x").build());
    ASSERT_TRUE(id) << id.error();
    segments.push_back(id.value().segment_id());
  }
  EXPECT_EQ(segments, (std::vector<std::int64_t>{0, 1, 0, 1}));
}

TEST_F(st_client_test, an_unknown_topic_fails_with_topic_not_found) {
  auto c = make_client();
  auto p = c.create_producer(topic, unbatched());
  ASSERT_FALSE(p);
  EXPECT_EQ(p.error(), client_errc::topic_not_found);
}

TEST_F(st_client_test, a_broker_without_scalable_topics_is_refused) {
  broker.set_supports_scalable_topics(false);
  broker.set_layout(topic, one_segment());
  auto c = make_client();
  auto p = c.create_producer(topic, unbatched());
  ASSERT_FALSE(p);
  EXPECT_EQ(p.error(), client_errc::unsupported_version);
}

TEST_F(st_client_test, closing_a_producer_closes_its_layout_session) {
  broker.set_layout(topic, one_segment());
  auto c = make_client();
  auto p = c.create_producer(topic, unbatched());
  ASSERT_TRUE(p) << p.error();
  ASSERT_TRUE(p.value().close());
  EXPECT_TRUE(broker.wait_until([&] { return !broker.closed_sessions().empty(); }));
  auto after = p.value().send(message_builder().payload("late").build());
  ASSERT_FALSE(after);
  EXPECT_EQ(after.error(), client_errc::already_closed);
}

TEST_F(st_client_test, flush_waits_for_every_earlier_send) {
  broker.set_layout(topic, two_segments());
  auto c = make_client();
  auto p = c.create_producer(topic);  // batched
  ASSERT_TRUE(p) << p.error();
  std::vector<std::future<result<message_id>>> sends;
  for (int i = 0; i < 30; ++i) {
    sends.push_back(p.value().send_future(message_builder().key("k" + std::to_string(i)).payload("x").build()));
  }
  ASSERT_TRUE(p.value().flush());
  for (auto& s : sends) {
    ASSERT_EQ(s.wait_for(0s), std::future_status::ready);
    EXPECT_TRUE(s.get());
  }
}

// Sends refused by a sealed segment are sent again once the layout moves on, and sends
// made meanwhile wait behind them: every key's messages are stored in send order.
TEST_F(st_client_test, a_split_keeps_every_keys_order) {
  broker.set_layout(topic, one_segment());
  auto c = make_client();
  auto p = c.create_producer(topic, unbatched());
  ASSERT_TRUE(p) << p.error();
  ASSERT_TRUE(p.value().send(message_builder().key("warm-up").payload("0").build()));

  broker.seal(segment_topic(0, 0, 0xFFFF));
  std::vector<std::future<result<message_id>>> sends;
  std::map<std::string, std::vector<std::string>> sent;
  auto send = [&](int i) {
    const std::string key = "key-" + std::to_string(i % 8);
    const std::string payload = std::to_string(i);
    sent[key].push_back(payload);
    sends.push_back(p.value().send_future(message_builder().key(key).payload(payload).build()));
  };
  for (int i = 0; i < 40; ++i) send(i);
  // Refused on the sealed segment before the broker's new layout comes.
  ASSERT_TRUE(broker.wait_until([&] { return broker.refused_sends() > 0; }));
  for (int i = 40; i < 60; ++i) send(i);
  broker.set_layout(topic, split_of_zero());
  for (int i = 60; i < 80; ++i) send(i);

  std::set<std::int64_t> segments;
  for (auto& s : sends) {
    auto id = s.get();
    ASSERT_TRUE(id) << id.error();
    segments.insert(id.value().segment_id());
  }
  EXPECT_FALSE(segments.contains(0));
  std::map<std::string, std::vector<std::string>> stored;
  for (const auto& m : broker.stored_messages()) {
    if (m.key != "warm-up") stored[m.key].push_back(m.payload);
  }
  EXPECT_EQ(stored, sent);
}

TEST_F(st_client_test, a_producer_follows_the_layout_after_a_reconnect) {
  broker.set_layout(topic, one_segment());
  auto c = make_client();
  auto p = c.create_producer(topic, unbatched());
  ASSERT_TRUE(p) << p.error();
  ASSERT_TRUE(p.value().send(message_builder().payload("before").build()));
  broker.drop_connections();
  // The session looks the layout up again on a new connection.
  ASSERT_TRUE(broker.wait_until([&] { return broker.layout_lookups() >= 2; }));
  broker.seal(segment_topic(0, 0, 0xFFFF));
  broker.set_layout(topic, split_of_zero());
  auto id = p.value().send(message_builder().key("key-0").payload("after").build());
  ASSERT_TRUE(id) << id.error();
  EXPECT_EQ(id.value().segment_id(), 2);  // key-0 hashes to 0xe337
}

TEST_F(st_client_test, a_stream_consumer_registers_again_after_a_reconnect) {
  broker.set_layout(topic, two_segments());
  proto::ScalableConsumerAssignment a;
  assign(a, 0, 0, 0x7FFF);
  broker.set_assignment(a);
  auto c = make_client();
  stream_consumer_config sc;
  sc.position = initial_position::earliest;
  auto s = c.subscribe_stream(topic, "sub", sc);
  ASSERT_TRUE(s) << s.error();
  broker.drop_connections();
  ASSERT_TRUE(broker.wait_until([&] { return broker.scalable_subscribes() >= 2; }));
  // The new registration's pushes reach it.
  proto::ScalableConsumerAssignment b;
  b.set_layout_epoch(2);
  assign(b, 1, 0x8000, 0xFFFF);
  broker.set_assignment(b);
  const auto high = segment_topic(1, 0x8000, 0xFFFF);
  broker.publish(high, "k", "pushed");
  auto m = s.value().receive(10s);
  ASSERT_TRUE(m) << m.error();
  EXPECT_EQ(m.value().payload(), "pushed");
}

TEST_F(st_client_test, a_stream_consumer_reads_its_segments_and_one_cumulative_ack_settles_both) {
  broker.set_layout(topic, two_segments());
  proto::ScalableConsumerAssignment a;
  assign(a, 0, 0, 0x7FFF);
  assign(a, 1, 0x8000, 0xFFFF);
  broker.set_assignment(a);
  const auto low = segment_topic(0, 0, 0x7FFF);
  const auto high = segment_topic(1, 0x8000, 0xFFFF);
  for (int i = 0; i < 10; ++i) {
    broker.publish(low, "k", "low-" + std::to_string(i));
    broker.publish(high, "k", "high-" + std::to_string(i));
  }
  auto c = make_client();
  stream_consumer_config sc;
  sc.position = initial_position::earliest;
  auto s = c.subscribe_stream(topic, "sub", sc);
  ASSERT_TRUE(s) << s.error();

  std::vector<message> got;
  while (got.size() < 20) {
    auto batch = s.value().receive_multi(20, 10s);
    ASSERT_TRUE(batch) << batch.error();
    ASSERT_FALSE(batch.value().empty());
    for (auto& m : batch.value()) got.push_back(std::move(m));
  }
  std::map<std::int64_t, std::vector<std::string>> by_segment;
  for (const auto& m : got) {
    by_segment[m.id().segment_id()].push_back(std::string(m.payload()));
    EXPECT_EQ(m.topic(), topic);
  }
  ASSERT_EQ(by_segment[0].size(), 10u);
  for (int i = 0; i < 10; ++i) {
    EXPECT_EQ(by_segment[0][static_cast<std::size_t>(i)], "low-" + std::to_string(i));
    EXPECT_EQ(by_segment[1][static_cast<std::size_t>(i)], "high-" + std::to_string(i));
  }
  // The last message delivered carries both segments' latest.
  EXPECT_EQ(got.back().id().positions().size(), 2u);
  ASSERT_TRUE(s.value().acknowledge_cumulative(got.back()));
  auto settled = [&](const std::string& t) {
    for (const auto& ack : broker.acks()) {
      if (ack.topic == t && ack.cumulative && ack.entry == 9) return true;
    }
    return false;
  };
  EXPECT_TRUE(broker.wait_until([&] { return settled(low) && settled(high); }));
  ASSERT_TRUE(s.value().close());

  auto again = c.subscribe_stream(topic, "sub", sc);
  ASSERT_TRUE(again) << again.error();
  auto none = again.value().receive(300ms);
  ASSERT_FALSE(none);
  EXPECT_EQ(none.error(), client_errc::timeout);
}

TEST_F(st_client_test, a_stream_consumer_follows_a_new_assignment) {
  broker.set_layout(topic, two_segments());
  proto::ScalableConsumerAssignment first;
  assign(first, 0, 0, 0x7FFF);
  broker.set_assignment(first);
  auto c = make_client();
  stream_consumer_config sc;
  sc.position = initial_position::earliest;
  auto s = c.subscribe_stream(topic, "sub", sc);
  ASSERT_TRUE(s) << s.error();

  proto::ScalableConsumerAssignment second;
  second.set_layout_epoch(1);
  assign(second, 1, 0x8000, 0xFFFF);
  broker.set_assignment(second);
  const auto high = segment_topic(1, 0x8000, 0xFFFF);
  ASSERT_TRUE(broker.wait_until([&] {
    auto subs = broker.subscriptions();
    return std::find(subs.begin(), subs.end(), high) != subs.end();
  }));
  broker.publish(high, "k", "after");
  auto m = s.value().receive(10s);
  ASSERT_TRUE(m) << m.error();
  EXPECT_EQ(m.value().payload(), "after");
  EXPECT_EQ(m.value().id().segment_id(), 1);
}

TEST_F(st_client_test, a_stream_consumer_refuses_bucket_shared_segments) {
  broker.set_layout(topic, one_segment());
  proto::ScalableConsumerAssignment a;
  auto* s = assign(a, 0, 0, 0xFFFF);
  auto* r = s->add_bucket_ranges();
  r->set_start(0);
  r->set_end(0x7FFF);
  broker.set_assignment(a);
  auto c = make_client();
  auto consumer = c.subscribe_stream(topic, "sub");
  ASSERT_FALSE(consumer);
  EXPECT_EQ(consumer.error(), client_errc::not_supported);
}

TEST_F(st_client_test, a_stream_consumer_on_an_unknown_topic_fails) {
  broker.set_layout(topic, one_segment());
  auto c = make_client();
  auto consumer = c.subscribe_stream(topic, "sub");
  ASSERT_FALSE(consumer);
  EXPECT_EQ(consumer.error(), client_errc::topic_not_found);
}

TEST_F(st_client_test, a_queue_consumer_reads_every_segment_sealed_or_active) {
  broker.set_layout(topic, split_of_zero());
  const std::vector<std::string> segments{segment_topic(0, 0, 0xFFFF), segment_topic(1, 0, 0x7FFF),
                                          segment_topic(2, 0x8000, 0xFFFF)};
  std::set<std::string> published;
  for (const auto& t : segments) {
    for (int i = 0; i < 5; ++i) {
      const std::string payload = t + "#" + std::to_string(i);
      broker.publish(t, "", payload);
      published.insert(payload);
    }
  }
  auto c = make_client();
  queue_consumer_config qc;
  qc.position = initial_position::earliest;
  auto q = c.subscribe_queue(topic, "work", qc);
  ASSERT_TRUE(q) << q.error();
  std::set<std::string> received;
  while (received.size() < published.size()) {
    auto m = q.value().receive(10s);
    ASSERT_TRUE(m) << m.error();
    received.insert(std::string(m.value().payload()));
    EXPECT_TRUE(q.value().acknowledge(m.value()));
  }
  EXPECT_EQ(received, published);
  EXPECT_TRUE(broker.wait_until([&] { return broker.acks().size() == published.size(); }));
}

TEST(st_client, an_empty_service_url_is_refused) {
  auto c = client::create("");
  ASSERT_FALSE(c);
  EXPECT_EQ(c.error(), client_errc::invalid_service_url);
}

TEST(st_client, builds_and_closes_without_a_broker) {
  auto c = client::create("pulsar://127.0.0.1:1");
  ASSERT_TRUE(c) << c.error();
  EXPECT_TRUE(c.value().close());
  EXPECT_TRUE(c.value().close());
}

}  // namespace
}  // namespace magnetar::st
