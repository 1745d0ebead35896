// Producers on partitioned topics against an in-process broker: routing, ids, flush,
// close, lazy start.
#include "client/hashing.h"
#include "client/tests/partitioned_fixture.h"

#include <future>
#include <set>
#include <vector>

namespace magnetar::client_testing {
namespace {

using namespace std::chrono_literals;
using client_detail::key_hash;

class partitioned_producer : public partitioned_test {};

TEST_F(partitioned_producer, its_topic_is_the_partitioned_topic_and_ids_carry_the_partition) {
  create_partitioned(topic(), 3);
  auto p = sdk->create_producer(topic(), unbatched());
  ASSERT_TRUE(p) << p.error();
  EXPECT_EQ(p.value().topic(), topic());
  EXPECT_TRUE(p.value().is_connected());
  auto id = p.value().send(text("a"));
  ASSERT_TRUE(id) << id.error();
  EXPECT_GE(id.value().partition(), 0);
  EXPECT_LT(id.value().partition(), 3);
}

TEST_F(partitioned_producer, a_key_goes_to_the_partition_of_its_murmur3_hash) {
  create_partitioned(topic(), 3);
  auto p = sdk->create_producer(topic(), unbatched());
  ASSERT_TRUE(p) << p.error();
  for (const std::string key : {"hello", "key-0", "key-1", "key-2", "user-42"}) {
    auto id = p.value().send(keyed(key, key));
    ASSERT_TRUE(id) << id.error();
    EXPECT_EQ(id.value().partition(), key_hash(hashing_scheme::murmur3_32, key) % 3) << key;
  }
}

TEST_F(partitioned_producer, a_keyed_message_is_stored_on_its_partition) {
  create_partitioned(topic(), 3);
  auto p = sdk->create_producer(topic(), unbatched());
  ASSERT_TRUE(p) << p.error();
  const int partition = key_hash(hashing_scheme::murmur3_32, "hello") % 3;
  auto c = sdk->subscribe(topic() + "-partition-" + std::to_string(partition), "sub", from_earliest());
  ASSERT_TRUE(c) << c.error();
  ASSERT_TRUE(p.value().send(keyed("hello", "on its partition")));
  auto m = c.value().receive(20s);
  ASSERT_TRUE(m) << m.error();
  EXPECT_EQ(m.value().payload(), "on its partition");
  EXPECT_EQ(m.value().id().partition(), partition);
}

TEST_F(partitioned_producer, java_string_hash_routes_keys_by_java_hashes) {
  create_partitioned(topic(), 7);
  auto config = unbatched();
  config.hashing = hashing_scheme::java_string_hash;
  auto p = sdk->create_producer(topic(), config);
  ASSERT_TRUE(p) << p.error();
  auto hello = p.value().send(keyed("hello", "x"));
  ASSERT_TRUE(hello) << hello.error();
  EXPECT_EQ(hello.value().partition(), 0);  // 99162322 % 7
  auto key1 = p.value().send(keyed("key-1", "x"));
  ASSERT_TRUE(key1) << key1.error();
  EXPECT_EQ(key1.value().partition(), 4);  // 101943363 % 7
}

TEST_F(partitioned_producer, round_robin_without_batching_visits_every_partition_in_turn) {
  create_partitioned(topic(), 3);
  auto p = sdk->create_producer(topic(), unbatched());
  ASSERT_TRUE(p) << p.error();
  std::vector<int> partitions;
  for (int i = 0; i < 6; ++i) {
    auto id = p.value().send(text("m"));
    ASSERT_TRUE(id) << id.error();
    partitions.push_back(id.value().partition());
  }
  for (int i = 1; i < 6; ++i) EXPECT_EQ(partitions[i], (partitions[i - 1] + 1) % 3);
}

TEST_F(partitioned_producer, round_robin_with_batching_keeps_a_batch_on_one_partition) {
  create_partitioned(topic(), 3);
  producer_config config;
  config.batching_max_delay = 1h;  // the window never ends: every keyless message stays
  auto p = sdk->create_producer(topic(), config);
  ASSERT_TRUE(p) << p.error();
  std::vector<std::future<result<message_id>>> sent;
  for (int i = 0; i < 5; ++i) sent.push_back(p.value().send_future(text("m")));
  ASSERT_TRUE(p.value().flush());
  std::set<int> partitions;
  for (auto& f : sent) {
    auto id = f.get();
    ASSERT_TRUE(id) << id.error();
    EXPECT_TRUE(id.value().is_batched());
    partitions.insert(id.value().partition());
  }
  EXPECT_EQ(partitions.size(), 1u);
}

TEST_F(partitioned_producer, single_partition_sends_every_keyless_message_to_one_partition) {
  create_partitioned(topic(), 4);
  auto config = unbatched();
  config.routing_mode = partition_routing_mode::single_partition;
  auto p = sdk->create_producer(topic(), config);
  ASSERT_TRUE(p) << p.error();
  std::set<int> partitions;
  for (int i = 0; i < 8; ++i) {
    auto id = p.value().send(text("m"));
    ASSERT_TRUE(id) << id.error();
    partitions.insert(id.value().partition());
  }
  EXPECT_EQ(partitions.size(), 1u);
  auto keyed_id = p.value().send(keyed("key-2", "k"));
  ASSERT_TRUE(keyed_id) << keyed_id.error();
  EXPECT_EQ(keyed_id.value().partition(), key_hash(hashing_scheme::murmur3_32, "key-2") % 4);
}

TEST_F(partitioned_producer, a_custom_router_picks_the_partition) {
  create_partitioned(topic(), 4);
  auto config = unbatched();
  config.routing_mode = partition_routing_mode::custom;
  config.message_router = [](const message& m, unsigned partitions) {
    return static_cast<unsigned>(std::stoi(m.properties().at("to"))) % partitions;
  };
  auto p = sdk->create_producer(topic(), config);
  ASSERT_TRUE(p) << p.error();
  for (int to : {3, 1, 2, 0}) {
    auto id = p.value().send(message_builder().payload("x").property("to", std::to_string(to)).build());
    ASSERT_TRUE(id) << id.error();
    EXPECT_EQ(id.value().partition(), to);
  }
}

TEST_F(partitioned_producer, a_router_answer_out_of_range_fails_the_send) {
  create_partitioned(topic(), 2);
  auto config = unbatched();
  config.routing_mode = partition_routing_mode::custom;
  config.message_router = [](const message&, unsigned partitions) { return partitions; };
  auto p = sdk->create_producer(topic(), config);
  ASSERT_TRUE(p) << p.error();
  auto id = p.value().send(text("x"));
  ASSERT_FALSE(id);
  EXPECT_EQ(id.error(), client_errc::invalid_argument);
}

TEST_F(partitioned_producer, flush_waits_for_every_partition) {
  create_partitioned(topic(), 3);
  producer_config config;
  config.batching_max_delay = 1h;  // only flush() sends the batches
  auto p = sdk->create_producer(topic(), config);
  ASSERT_TRUE(p) << p.error();
  std::vector<std::future<result<message_id>>> sent;
  for (const std::string key : {"key-0", "key-1", "key-2", "hello", "user-42"}) {
    sent.push_back(p.value().send_future(keyed(key, key)));
  }
  ASSERT_TRUE(p.value().flush());
  std::set<int> partitions;
  for (auto& f : sent) {
    ASSERT_EQ(f.wait_for(0s), std::future_status::ready);
    auto id = f.get();
    ASSERT_TRUE(id) << id.error();
    partitions.insert(id.value().partition());
  }
  EXPECT_GT(partitions.size(), 1u);
}

TEST_F(partitioned_producer, sends_after_close_fail) {
  create_partitioned(topic(), 2);
  auto p = sdk->create_producer(topic(), unbatched());
  ASSERT_TRUE(p) << p.error();
  ASSERT_TRUE(p.value().send(text("a")));
  ASSERT_TRUE(p.value().close());
  auto id = p.value().send(text("b"));
  ASSERT_FALSE(id);
  EXPECT_EQ(id.error(), client_errc::already_closed);
}

TEST_F(partitioned_producer, close_releases_every_partition_for_an_exclusive_producer) {
  create_partitioned(topic(), 2);
  producer_config config = unbatched();
  config.access_mode = producer_access_mode::exclusive;
  auto first = sdk->create_producer(topic(), config);
  ASSERT_TRUE(first) << first.error();
  auto refused = sdk->create_producer(topic(), config);
  ASSERT_FALSE(refused);
  EXPECT_EQ(refused.error(), client_errc::producer_fenced);  // upstream's answer: no retry
  ASSERT_TRUE(first.value().close());
  auto second = sdk->create_producer(topic(), config);
  EXPECT_TRUE(second) << second.error();
}

TEST_F(partitioned_producer, lazily_started_partitions_start_on_their_first_message) {
  create_partitioned(topic(), 3);
  auto config = unbatched();
  config.lazy_start_partitioned_producers = true;
  auto p = sdk->create_producer(topic(), config);
  ASSERT_TRUE(p) << p.error();
  std::vector<std::future<result<message_id>>> sent;
  for (int i = 0; i < 9; ++i) sent.push_back(p.value().send_future(text("m" + std::to_string(i))));
  std::set<int> partitions;
  for (auto& f : sent) {
    auto id = f.get();
    ASSERT_TRUE(id) << id.error();
    partitions.insert(id.value().partition());
  }
  EXPECT_EQ(partitions.size(), 3u);
  EXPECT_TRUE(p.value().flush());
}

TEST_F(partitioned_producer, last_sequence_id_is_the_highest_of_the_partitions) {
  create_partitioned(topic(), 2);
  auto p = sdk->create_producer(topic(), unbatched());
  ASSERT_TRUE(p) << p.error();
  EXPECT_EQ(p.value().last_sequence_id(), -1);
  for (int i = 0; i < 4; ++i) ASSERT_TRUE(p.value().send(text("m")));
  // Each partition numbers its own messages: two each.
  EXPECT_EQ(p.value().last_sequence_id(), 1);
}

TEST_F(partitioned_producer, a_producer_on_one_partition_gets_ids_with_its_index) {
  create_partitioned(topic(), 2);
  auto p = sdk->create_producer(topic() + "-partition-1", unbatched());
  ASSERT_TRUE(p) << p.error();
  auto id = p.value().send(text("a"));
  ASSERT_TRUE(id) << id.error();
  EXPECT_EQ(id.value().partition(), 1);
}

}  // namespace
}  // namespace magnetar::client_testing
