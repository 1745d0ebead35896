// Consumers over several topics against an in-process broker: partitioned topics,
// lists, patterns with re-discovery; one queue, acks routed to the right topic, seek,
// redelivery, unsubscribe; readers over partitions.
#include "client/tests/partitioned_fixture.h"

#include <array>
#include <future>
#include <map>
#include <set>
#include <vector>

namespace magnetar::client_testing {
namespace {

using namespace std::chrono_literals;

class multi_topic : public partitioned_test {
 protected:
  // Sends `count` messages "<prefix><i>" to `t`, unbatched.
  void produce(const std::string& t, const std::string& prefix, int count) {
    auto p = sdk->create_producer(t, unbatched());
    ASSERT_TRUE(p) << p.error();
    for (int i = 0; i < count; ++i) ASSERT_TRUE(p.value().send(text(prefix + std::to_string(i))));
    ASSERT_TRUE(p.value().close());
  }

  // Receives `count` messages, failing the test on a timeout.
  static std::vector<message> take(consumer& c, int count) {
    std::vector<message> out;
    for (int i = 0; i < count; ++i) {
      auto m = c.receive(20s);
      EXPECT_TRUE(m) << m.error();
      if (!m) break;
      out.push_back(m.value());
    }
    return out;
  }

  static std::set<std::string> payloads(const std::vector<message>& ms) {
    std::set<std::string> out;
    for (const auto& m : ms) out.insert(std::string(m.payload()));
    return out;
  }
};

TEST_F(multi_topic, a_partitioned_topic_is_consumed_from_every_partition) {
  create_partitioned(topic(), 3);
  auto c = sdk->subscribe(topic(), "sub", from_earliest());
  ASSERT_TRUE(c) << c.error();
  EXPECT_EQ(c.value().topic(), topic());
  produce(topic(), "m", 9);
  auto got = take(c.value(), 9);
  ASSERT_EQ(got.size(), 9u);
  EXPECT_EQ(payloads(got).size(), 9u);
  std::set<int> partitions;
  for (const auto& m : got) {
    const int partition = m.id().partition();
    partitions.insert(partition);
    EXPECT_EQ(m.topic_name(), topic() + "-partition-" + std::to_string(partition));
    EXPECT_EQ(m.id().topic_name(), m.topic_name());
  }
  EXPECT_EQ(partitions.size(), 3u);
}

TEST_F(multi_topic, a_list_of_topics_fans_into_one_queue) {
  create_partitioned(topic("-p"), 2);
  const std::vector<std::string> topics{topic("-a"), topic("-b"), topic("-p")};
  auto c = sdk->subscribe(topics, "sub", from_earliest());
  ASSERT_TRUE(c) << c.error();
  produce(topic("-a"), "a", 3);
  produce(topic("-b"), "b", 3);
  produce(topic("-p"), "p", 4);
  auto got = take(c.value(), 10);
  ASSERT_EQ(got.size(), 10u);
  std::map<std::string, int> per_topic;
  for (const auto& m : got) ++per_topic[m.topic_name()];
  EXPECT_EQ(per_topic[topic("-a")], 3);
  EXPECT_EQ(per_topic[topic("-b")], 3);
  EXPECT_EQ(per_topic[topic("-p") + "-partition-0"] + per_topic[topic("-p") + "-partition-1"], 4);
}

TEST_F(multi_topic, a_small_receiver_queue_still_gets_every_message) {
  create_partitioned(topic(), 3);
  auto config = from_earliest();
  config.receiver_queue_size = 2;
  auto c = sdk->subscribe(topic(), "sub", config);
  ASSERT_TRUE(c) << c.error();
  produce(topic(), "m", 30);
  auto got = take(c.value(), 30);
  EXPECT_EQ(payloads(got).size(), 30u);
}

TEST_F(multi_topic, acks_reach_the_topic_each_message_came_from) {
  const std::vector<std::string> topics{topic("-a"), topic("-b")};
  auto c = sdk->subscribe(topics, "sub", from_earliest());
  ASSERT_TRUE(c) << c.error();
  produce(topic("-a"), "a", 2);
  produce(topic("-b"), "b", 2);
  for (const auto& m : take(c.value(), 4)) ASSERT_TRUE(c.value().acknowledge(m));
  ASSERT_TRUE(c.value().close());
  EXPECT_TRUE(eventually([&] { return backlog(topic("-a"), "sub") == 0 && backlog(topic("-b"), "sub") == 0; }));
}

TEST_F(multi_topic, a_cumulative_ack_covers_only_its_own_topic) {
  const std::vector<std::string> topics{topic("-a"), topic("-b")};
  auto c = sdk->subscribe(topics, "sub", from_earliest());
  ASSERT_TRUE(c) << c.error();
  produce(topic("-a"), "a", 3);
  produce(topic("-b"), "b", 3);
  std::optional<message> last_a;
  for (const auto& m : take(c.value(), 6)) {
    if (m.topic_name() == topic("-a")) last_a = m;
  }
  ASSERT_TRUE(last_a);
  ASSERT_TRUE(c.value().acknowledge_cumulative(*last_a));
  ASSERT_TRUE(c.value().close());
  EXPECT_TRUE(eventually([&] { return backlog(topic("-a"), "sub") == 0; }));
  EXPECT_EQ(backlog(topic("-b"), "sub"), 3);
}

TEST_F(multi_topic, an_id_of_a_topic_not_consumed_is_not_supported) {
  const std::vector<std::string> topics{topic("-a"), topic("-b")};
  auto c = sdk->subscribe(topics, "sub", from_earliest());
  ASSERT_TRUE(c) << c.error();
  message_id foreign(1, 2);
  foreign.set_topic_name(topic("-other"));
  auto acked = c.value().acknowledge(foreign);
  ASSERT_FALSE(acked);
  EXPECT_EQ(acked.error(), client_errc::not_supported);
  auto untagged = c.value().acknowledge(message_id(1, 2));
  ASSERT_FALSE(untagged);
  EXPECT_EQ(untagged.error(), client_errc::not_supported);
}

TEST_F(multi_topic, an_id_with_only_a_partition_names_that_partition) {
  create_partitioned(topic(), 2);
  auto c = sdk->subscribe(topic(), "sub", from_earliest());
  ASSERT_TRUE(c) << c.error();
  produce(topic(), "m", 2);
  for (const auto& m : take(c.value(), 2)) {
    const message_id bare(m.id().ledger_id(), m.id().entry_id(), m.id().partition());
    EXPECT_TRUE(c.value().acknowledge(bare));
  }
  ASSERT_TRUE(c.value().close());
  EXPECT_TRUE(eventually(
      [&] { return backlog(topic() + "-partition-0", "sub") == 0 && backlog(topic() + "-partition-1", "sub") == 0; }));
}

TEST_F(multi_topic, unacked_messages_come_again_on_redeliver) {
  create_partitioned(topic(), 2);
  auto c = sdk->subscribe(topic(), "sub", from_earliest());
  ASSERT_TRUE(c) << c.error();
  produce(topic(), "m", 4);
  auto first = take(c.value(), 4);
  ASSERT_TRUE(c.value().redeliver_unacknowledged());
  auto again = take(c.value(), 4);
  EXPECT_EQ(payloads(again), payloads(first));
}

TEST_F(multi_topic, seek_to_earliest_rewinds_every_topic) {
  create_partitioned(topic(), 2);
  const std::vector<std::string> topics{topic(), topic("-plain")};
  auto c = sdk->subscribe(topics, "sub", from_earliest());
  ASSERT_TRUE(c) << c.error();
  produce(topic(), "p", 4);
  produce(topic("-plain"), "q", 2);
  auto first = take(c.value(), 6);
  ASSERT_TRUE(c.value().seek(message_id::earliest()));
  auto again = take(c.value(), 6);
  EXPECT_EQ(payloads(again), payloads(first));
}

TEST_F(multi_topic, seek_to_an_id_moves_only_its_topic) {
  const std::vector<std::string> topics{topic("-a"), topic("-b")};
  auto c = sdk->subscribe(topics, "sub", from_earliest());
  ASSERT_TRUE(c) << c.error();
  produce(topic("-a"), "a", 3);
  produce(topic("-b"), "b", 1);
  std::vector<message> from_a;
  for (const auto& m : take(c.value(), 4)) {
    if (m.topic_name() == topic("-a")) from_a.push_back(m);
  }
  ASSERT_EQ(from_a.size(), 3u);
  ASSERT_TRUE(c.value().seek(from_a[1].id()));
  auto again = take(c.value(), 2);
  EXPECT_EQ(payloads(again), (std::set<std::string>{"a1", "a2"}));
}

TEST_F(multi_topic, get_last_message_id_is_not_supported) {
  create_partitioned(topic(), 2);
  auto c = sdk->subscribe(topic(), "sub");
  ASSERT_TRUE(c) << c.error();
  auto last = c.value().get_last_message_id();
  ASSERT_FALSE(last);
  EXPECT_EQ(last.error(), client_errc::not_supported);
}

TEST_F(multi_topic, unsubscribe_deletes_the_subscription_on_every_partition) {
  create_partitioned(topic(), 2);
  auto c = sdk->subscribe(topic(), "sub", from_earliest());
  ASSERT_TRUE(c) << c.error();
  produce(topic(), "m", 2);
  ASSERT_TRUE(c.value().unsubscribe());
  EXPECT_EQ(backlog(topic() + "-partition-0", "sub"), -1);
  EXPECT_EQ(backlog(topic() + "-partition-1", "sub"), -1);
  EXPECT_FALSE(c.value().is_connected());
  auto again = c.value().unsubscribe();
  ASSERT_FALSE(again);
  EXPECT_EQ(again.error(), client_errc::already_closed);
}

TEST_F(multi_topic, receive_async_and_batch_receive_take_from_the_shared_queue) {
  create_partitioned(topic(), 2);
  auto c = sdk->subscribe(topic(), "sub", from_earliest());
  ASSERT_TRUE(c) << c.error();
  std::promise<result<message>> got;
  c.value().receive_async([&](result<message> m) { got.set_value(std::move(m)); });
  produce(topic(), "m", 5);
  auto first = got.get_future().get();
  ASSERT_TRUE(first) << first.error();
  std::set<std::string> all{std::string(first.value().payload())};
  while (all.size() < 5) {
    auto batch = c.value().batch_receive({.max_messages = 10, .max_bytes = 1 << 20, .timeout = 100ms});
    ASSERT_TRUE(batch) << batch.error();
    for (const auto& m : batch.value()) all.insert(std::string(m.payload()));
  }
  EXPECT_EQ(all.size(), 5u);
}

TEST_F(multi_topic, closing_ends_a_waiting_receive) {
  create_partitioned(topic(), 2);
  auto c = sdk->subscribe(topic(), "sub");
  ASSERT_TRUE(c) << c.error();
  auto waiting = std::async(std::launch::async, [&] { return c.value().receive(); });
  ASSERT_TRUE(c.value().close());
  auto r = waiting.get();
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error(), client_errc::already_closed);
}

TEST_F(multi_topic, a_pattern_subscribes_to_the_matching_topics_of_its_namespace) {
  produce(topic("-eu-1"), "eu1-", 1);
  produce(topic("-us-1"), "us1-", 1);
  create_partitioned(topic("-eu-2"), 2);
  auto c = sdk->subscribe_with_regex(topic("-eu-.*"), "sub", from_earliest());
  ASSERT_TRUE(c) << c.error();
  produce(topic("-eu-2"), "eu2-", 2);
  auto got = take(c.value(), 3);
  EXPECT_EQ(payloads(got), (std::set<std::string>{"eu1-0", "eu2-0", "eu2-1"}));
}

TEST_F(multi_topic, a_pattern_picks_up_topics_created_later) {
  auto config = from_earliest();
  config.pattern_auto_discovery_period = 100ms;
  auto c = sdk->subscribe_with_regex(topic("-late-.*"), "sub", config);
  ASSERT_TRUE(c) << c.error();
  produce(topic("-late-1"), "late", 1);
  auto m = c.value().receive(20s);
  ASSERT_TRUE(m) << m.error();
  EXPECT_EQ(m.value().payload(), "late0");
  EXPECT_EQ(m.value().topic_name(), topic("-late-1"));
}

TEST_F(multi_topic, a_bad_pattern_is_refused) {
  auto c = sdk->subscribe_with_regex("persistent://public/default/(", "sub");
  ASSERT_FALSE(c);
  EXPECT_EQ(c.error(), client_errc::invalid_argument);
}

TEST_F(multi_topic, a_consumer_on_one_partition_gets_ids_with_its_index) {
  create_partitioned(topic(), 2);
  auto c = sdk->subscribe(topic() + "-partition-1", "sub", from_earliest());
  ASSERT_TRUE(c) << c.error();
  produce(topic() + "-partition-1", "m", 1);
  auto m = c.value().receive(20s);
  ASSERT_TRUE(m) << m.error();
  EXPECT_EQ(m.value().id().partition(), 1);
  EXPECT_EQ(m.value().id().topic_name(), topic() + "-partition-1");
}

TEST_F(multi_topic, a_reader_on_a_partitioned_topic_reads_every_partition) {
  create_partitioned(topic(), 3);
  produce(topic(), "m", 6);
  reader_config config;
  config.start = message_id::earliest();
  auto r = sdk->create_reader(topic(), config);
  ASSERT_TRUE(r) << r.error();
  std::set<std::string> read;
  for (int i = 0; i < 6; ++i) {
    auto m = r.value().read_next(20s);
    ASSERT_TRUE(m) << m.error();
    read.insert(std::string(m.value().payload()));
  }
  EXPECT_EQ(read.size(), 6u);
  auto more = r.value().has_message_available();
  ASSERT_TRUE(more) << more.error();
  EXPECT_FALSE(more.value());
}

TEST_F(multi_topic, a_reader_from_latest_inclusive_reads_each_partitions_last_message) {
  create_partitioned(topic(), 2);
  {
    auto p = sdk->create_producer(topic(), unbatched());
    ASSERT_TRUE(p) << p.error();
    // murmur3: "key-0" goes to partition 1, "key-1" to partition 0.
    for (const auto& [key, payload] : std::vector<std::pair<std::string, std::string>>{
             {"key-0", "a0"}, {"key-1", "b0"}, {"key-0", "a1"}, {"key-1", "b1"}}) {
      ASSERT_TRUE(p.value().send(keyed(key, payload)));
    }
  }
  reader_config config;
  config.start = message_id::latest();
  config.start_inclusive = true;
  auto r = sdk->create_reader(topic(), config);
  ASSERT_TRUE(r) << r.error();
  std::set<std::string> read;
  for (int i = 0; i < 2; ++i) {
    auto m = r.value().read_next(20s);
    ASSERT_TRUE(m) << m.error();
    read.insert(std::string(m.value().payload()));
  }
  EXPECT_EQ(read, (std::set<std::string>{"a1", "b1"}));
}

TEST_F(multi_topic, a_reader_on_partitions_has_messages_until_all_are_read) {
  create_partitioned(topic(), 2);
  produce(topic(), "m", 2);
  reader_config config;
  config.start = message_id::earliest();
  auto r = sdk->create_reader(topic(), config);
  ASSERT_TRUE(r) << r.error();
  auto before = r.value().has_message_available();
  ASSERT_TRUE(before) << before.error();
  EXPECT_TRUE(before.value());
}

}  // namespace
}  // namespace magnetar::client_testing

namespace magnetar::client_testing {
namespace {

using namespace std::chrono_literals;

class failover_partitions : public partitioned_test {};

// Failover on a partitioned topic: each partition has its own active consumer, spread
// over the consumers as upstream spreads them (partition index modulo their count, in
// name order), so two consumers share four partitions two and two.
TEST_F(failover_partitions, each_partition_has_one_active_consumer_spread_over_the_consumers) {
  create_partitioned(topic(), 4);
  auto config = from_earliest();
  config.type = subscription_type::failover;
  config.consumer_name = "a";
  auto a = sdk->subscribe(topic(), "sub", config);
  ASSERT_TRUE(a) << a.error();
  config.consumer_name = "b";
  auto b = sdk->subscribe(topic(), "sub", config);
  ASSERT_TRUE(b) << b.error();
  // Both are on every partition before anything is published.
  ASSERT_TRUE(eventually([&] { return a.value().is_connected() && b.value().is_connected(); }));
  auto p = sdk->create_producer(topic(), unbatched());
  ASSERT_TRUE(p) << p.error();
  for (int i = 0; i < 40; ++i) ASSERT_TRUE(p.value().send(text(std::to_string(i))));
  std::map<std::string, std::set<int>> partitions_of;
  const std::array<std::pair<std::string, consumer*>, 2> consumers{{{"a", &a.value()}, {"b", &b.value()}}};
  int received = 0;
  for (int round = 0; received < 40 && round < 600; ++round) {
    for (const auto& [name, c] : consumers) {
      auto m = c->receive(50ms);
      if (!m) continue;
      ++received;
      partitions_of[name].insert(m.value().id().partition());
      ASSERT_TRUE(c->acknowledge(m.value()));
    }
  }
  ASSERT_EQ(received, 40);
  EXPECT_EQ(partitions_of["a"], (std::set<int>{0, 2}));
  EXPECT_EQ(partitions_of["b"], (std::set<int>{1, 3}));
}

}  // namespace
}  // namespace magnetar::client_testing
