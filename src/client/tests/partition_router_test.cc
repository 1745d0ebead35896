// Partition routers: keyed messages by hash, round robin per batch window or per
// message, single partition, custom. Time is a manual clock.
#include "client/partition_router.h"

#include "base/clock.h"
#include "client/hashing.h"
#include "magnetar/errc.h"

#include <gtest/gtest.h>

#include <vector>

namespace magnetar::client_detail {
namespace {

using namespace std::chrono_literals;

message keyless(std::size_t size = 10) { return message_builder().payload(std::string(size, 'x')).build(); }
message keyed(const std::string& key) { return message_builder().payload("x").key(key).build(); }

producer_config batched(unsigned max_messages = 1000, std::size_t max_bytes = 128 * 1024,
                        std::chrono::milliseconds delay = 10ms) {
  producer_config c;
  c.batching_max_messages = max_messages;
  c.batching_max_bytes = max_bytes;
  c.batching_max_delay = delay;
  return c;
}

std::vector<unsigned> route(partition_router& r, int count, unsigned partitions, std::size_t size = 10) {
  std::vector<unsigned> out;
  for (int i = 0; i < count; ++i) out.push_back(r.choose(keyless(size), partitions));
  return out;
}

TEST(partition_router, round_robin_routes_a_keyed_message_by_its_hash) {
  base::manual_clock clock;
  round_robin_router r(hashing_scheme::murmur3_32, batched(), clock, 0);
  EXPECT_EQ(r.choose(keyed("hello"), 7), 6u);
  round_robin_router java(hashing_scheme::java_string_hash, batched(), clock, 0);
  EXPECT_EQ(java.choose(keyed("hello"), 7), 0u);
}

TEST(partition_router, round_robin_without_batching_moves_on_every_message) {
  base::manual_clock clock;
  auto config = batched();
  config.batching_enabled = false;
  round_robin_router r(hashing_scheme::murmur3_32, config, clock, 5);
  EXPECT_EQ(route(r, 4, 3), (std::vector<unsigned>{2, 0, 1, 2}));
}

TEST(partition_router, round_robin_with_batching_stays_for_the_batch_delay) {
  base::manual_clock clock;
  round_robin_router r(hashing_scheme::murmur3_32, batched(1000, 128 * 1024, 10ms), clock, 0);
  EXPECT_EQ(route(r, 3, 4), (std::vector<unsigned>{0, 0, 0}));
  clock.advance(9ms);
  EXPECT_EQ(r.choose(keyless(), 4), 0u);
  clock.advance(1ms);
  EXPECT_EQ(route(r, 2, 4), (std::vector<unsigned>{1, 1}));
  clock.advance(10ms);
  EXPECT_EQ(r.choose(keyless(), 4), 2u);
}

TEST(partition_router, round_robin_moves_on_when_a_batch_is_full_of_messages) {
  base::manual_clock clock;
  round_robin_router r(hashing_scheme::murmur3_32, batched(3), clock, 0);
  EXPECT_EQ(route(r, 7, 4), (std::vector<unsigned>{0, 0, 0, 1, 1, 1, 2}));
}

TEST(partition_router, round_robin_moves_on_when_a_batch_is_full_of_bytes) {
  base::manual_clock clock;
  round_robin_router r(hashing_scheme::murmur3_32, batched(1000, 250), clock, 0);
  EXPECT_EQ(route(r, 4, 4, 100), (std::vector<unsigned>{0, 0, 1, 1}));
}

TEST(partition_router, keyed_messages_do_not_count_towards_the_batch_window) {
  base::manual_clock clock;
  round_robin_router r(hashing_scheme::murmur3_32, batched(2), clock, 0);
  EXPECT_EQ(r.choose(keyless(), 4), 0u);
  (void)r.choose(keyed("a"), 4);
  EXPECT_EQ(r.choose(keyless(), 4), 0u);
  EXPECT_EQ(r.choose(keyless(), 4), 1u);
}

TEST(partition_router, one_partition_is_always_partition_zero) {
  base::manual_clock clock;
  round_robin_router r(hashing_scheme::murmur3_32, batched(), clock, 7);
  EXPECT_EQ(r.choose(keyed("hello"), 1), 0u);
  EXPECT_EQ(r.choose(keyless(), 1), 0u);
}

TEST(partition_router, single_partition_sends_keyless_messages_to_its_partition) {
  single_partition_router r(hashing_scheme::murmur3_32, 2);
  EXPECT_EQ(route(r, 5, 4), (std::vector<unsigned>(5, 2)));
}

TEST(partition_router, single_partition_routes_a_keyed_message_by_its_hash) {
  single_partition_router r(hashing_scheme::murmur3_32, 2);
  EXPECT_EQ(r.choose(keyed("key-2"), 7), 4u);
  EXPECT_EQ(r.choose(keyed("hello"), 7), 6u);
}

TEST(partition_router, single_partition_picks_a_partition_within_range) {
  producer_config c;
  c.routing_mode = partition_routing_mode::single_partition;
  for (int i = 0; i < 20; ++i) {
    auto r = make_partition_router(c, 3, base::system_clock());
    ASSERT_TRUE(r) << r.error();
    EXPECT_LT(r.value()->choose(keyless(), 3), 3u);
  }
}

TEST(partition_router, a_custom_router_decides) {
  producer_config c;
  c.routing_mode = partition_routing_mode::custom;
  c.message_router = [](const message& m, unsigned partitions) { return static_cast<unsigned>(m.size()) % partitions; };
  auto r = make_partition_router(c, 4, base::system_clock());
  ASSERT_TRUE(r) << r.error();
  EXPECT_EQ(r.value()->choose(keyless(6), 4), 2u);
  EXPECT_EQ(r.value()->choose(keyed("hello"), 4), 1u);
}

TEST(partition_router, custom_mode_without_a_router_is_refused) {
  producer_config c;
  c.routing_mode = partition_routing_mode::custom;
  auto r = make_partition_router(c, 4, base::system_clock());
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error(), client_errc::invalid_argument);
}

}  // namespace
}  // namespace magnetar::client_detail
