#include "client/st/segment_router.h"

#include "base/murmur3.h"
#include "magnetar/errc.h"

#include <gtest/gtest.h>

#include <set>
#include <string>

namespace magnetar::st::detail {
namespace {

proto::ScalableTopicDAG even_dag(int n) {
  proto::ScalableTopicDAG dag;
  const std::uint32_t size = 0x10000 / static_cast<std::uint32_t>(n);
  for (int i = 0; i < n; ++i) {
    auto* s = dag.add_segments();
    s->set_segment_id(static_cast<std::uint64_t>(i));
    s->set_hash_start(static_cast<std::uint32_t>(i) * size);
    s->set_hash_end(i == n - 1 ? 0xFFFF : static_cast<std::uint32_t>(i) * size + size - 1);
    s->set_state(proto::ACTIVE);
  }
  return dag;
}

segment_layout layout_of(const proto::ScalableTopicDAG& dag) {
  auto l = segment_layout::from_proto(dag, "topic://public/default/orders");
  EXPECT_TRUE(l) << l.error();
  return l.value();
}

TEST(st_hashing, segment_hash_is_the_high_half_of_the_raw_murmur3) {
  // Raw MurmurHash3 x86_32, seed 0 (the published vector for "hello"), unmasked.
  EXPECT_EQ(base::murmur3_32("hello"), 0x248bfa47u);
  EXPECT_EQ(segment_hash("hello"), 0x248bu);
  EXPECT_EQ(entry_bucket_hash("hello"), 0xfa47u);
  EXPECT_EQ(segment_hash(""), 0u);
  EXPECT_EQ(segment_hash("a"), 0x3c25u);
}

TEST(st_hashing, keys_with_the_top_bit_set_are_not_masked) {
  EXPECT_EQ(base::murmur3_32("key-0"), 0xe337f8bfu);
  EXPECT_EQ(segment_hash("key-0"), 0xe337u);
  EXPECT_EQ(segment_hash("key-1"), 0x98b1u);
  EXPECT_EQ(segment_hash("key-2"), 0xf3f8u);
  EXPECT_EQ(segment_hash("key-3"), 0x794bu);
  EXPECT_EQ(segment_hash("orders-42"), 0xc41fu);
  EXPECT_EQ(entry_bucket_hash("orders-42"), 0xc022u);
}

TEST(st_hashing, segment_and_bucket_hash_recompose_the_raw_hash) {
  for (std::string key : {"a", "key-7", "orders-42", "user-1234"}) {
    EXPECT_EQ((segment_hash(key) << 16) | entry_bucket_hash(key), base::murmur3_32(key)) << key;
  }
}

TEST(st_segment_router, routes_a_key_to_the_segment_holding_its_hash) {
  auto layout = layout_of(even_dag(2));
  segment_router router;
  // key-3 hashes to 0x794b (lower half), key-0 to 0xe337 (upper half).
  auto low = router.route(layout, "key-3");
  ASSERT_TRUE(low) << low.error();
  EXPECT_EQ(low.value()->id, 0u);
  auto high = router.route(layout, "key-0");
  ASSERT_TRUE(high) << high.error();
  EXPECT_EQ(high.value()->id, 1u);
}

TEST(st_segment_router, routes_a_key_the_same_way_every_time) {
  auto layout = layout_of(even_dag(4));
  segment_router router;
  for (int i = 0; i < 50; ++i) {
    const std::string key = "key-" + std::to_string(i);
    auto first = router.route(layout, key);
    auto second = router.route(layout, key);
    ASSERT_TRUE(first && second);
    EXPECT_EQ(first.value()->id, second.value()->id);
    EXPECT_TRUE(first.value()->contains(segment_hash(key)));
  }
}

TEST(st_segment_router, one_full_range_segment_takes_every_key) {
  auto layout = layout_of(even_dag(1));
  segment_router router;
  for (int i = 0; i < 50; ++i) {
    auto r = router.route(layout, "k" + std::to_string(i));
    ASSERT_TRUE(r);
    EXPECT_EQ(r.value()->id, 0u);
  }
}

TEST(st_segment_router, keyless_messages_go_round_robin_over_active_segments) {
  auto layout = layout_of(even_dag(4));
  segment_router router;
  std::vector<std::uint64_t> ids;
  for (int i = 0; i < 8; ++i) {
    auto r = router.route(layout, std::nullopt);
    ASSERT_TRUE(r);
    ids.push_back(r.value()->id);
  }
  EXPECT_EQ(ids, (std::vector<std::uint64_t>{0, 1, 2, 3, 0, 1, 2, 3}));
}

TEST(st_segment_router, sealed_segments_take_nothing) {
  auto dag = even_dag(2);
  dag.mutable_segments(0)->set_state(proto::SEALED);
  auto layout = layout_of(dag);
  segment_router router;
  for (int i = 0; i < 4; ++i) {
    auto r = router.route(layout, std::nullopt);
    ASSERT_TRUE(r);
    EXPECT_EQ(r.value()->id, 1u);
  }
}

TEST(st_segment_router, no_active_segment_is_service_not_ready) {
  auto dag = even_dag(1);
  dag.mutable_segments(0)->set_state(proto::SEALED);
  auto layout = layout_of(dag);
  segment_router router;
  auto r = router.route(layout, "key-0");
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error(), client_errc::service_not_ready);
}

TEST(st_segment_router, an_uncovered_hash_is_a_clear_error) {
  // Only the lower half is covered; key-0 hashes to 0xe337.
  proto::ScalableTopicDAG dag;
  auto* s = dag.add_segments();
  s->set_segment_id(1);
  s->set_hash_start(0);
  s->set_hash_end(0x7FFF);
  s->set_state(proto::ACTIVE);
  auto layout = layout_of(dag);
  segment_router router;
  auto r = router.route(layout, "key-0");
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error(), client_errc::protocol_error);
  EXPECT_NE(r.error().detail().find("0xe337"), std::string::npos) << r.error();
}

TEST(st_segment_router, all_legacy_segments_route_keys_as_partitions) {
  proto::ScalableTopicDAG dag;
  for (int i = 0; i < 3; ++i) {
    auto* s = dag.add_segments();
    s->set_segment_id(static_cast<std::uint64_t>(i));
    s->set_hash_start(0);
    s->set_hash_end(0xFFFF);
    s->set_state(proto::ACTIVE);
    s->set_legacy_topic_name("persistent://public/default/orders-partition-" + std::to_string(i));
  }
  auto layout = layout_of(dag);
  segment_router router;
  for (std::string key : {"key-0", "key-1", "user-42"}) {
    auto r = router.route(layout, key);
    ASSERT_TRUE(r) << r.error();
    EXPECT_EQ(r.value()->id, (base::murmur3_32(key) & 0x7FFFFFFFu) % 3) << key;
  }
}

}  // namespace
}  // namespace magnetar::st::detail
