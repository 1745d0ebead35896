#include "client/st/segment_layout.h"

#include "magnetar/errc.h"

#include <gtest/gtest.h>

namespace magnetar::st::detail {
namespace {

proto::SegmentInfoProto* add_segment(proto::ScalableTopicDAG& dag, std::uint64_t id, std::uint32_t start,
                                     std::uint32_t end, bool sealed = false) {
  auto* s = dag.add_segments();
  s->set_segment_id(id);
  s->set_hash_start(start);
  s->set_hash_end(end);
  s->set_state(sealed ? proto::SEALED : proto::ACTIVE);
  return s;
}

// The layout after "split 0" of a one-segment topic: 0 sealed, 1 and 2 active.
proto::ScalableTopicDAG split_dag() {
  proto::ScalableTopicDAG dag;
  dag.set_epoch(1);
  add_segment(dag, 2, 0x8000, 0xFFFF)->add_parent_ids(0);
  add_segment(dag, 1, 0x0000, 0x7FFF)->add_parent_ids(0);
  auto* root = add_segment(dag, 0, 0x0000, 0xFFFF, true);
  root->add_child_ids(1);
  root->add_child_ids(2);
  return dag;
}

TEST(st_segment_layout, keeps_the_epoch_and_the_topic) {
  auto layout = segment_layout::from_proto(split_dag(), "topic://public/default/orders");
  ASSERT_TRUE(layout) << layout.error();
  EXPECT_EQ(layout.value().epoch(), 1u);
  EXPECT_EQ(layout.value().topic(), "topic://public/default/orders");
}

TEST(st_segment_layout, sorts_active_segments_by_hash_start_and_sealed_by_id) {
  proto::ScalableTopicDAG dag = split_dag();
  add_segment(dag, 9, 0, 5, true);
  auto layout = segment_layout::from_proto(dag, "topic://public/default/orders");
  ASSERT_TRUE(layout) << layout.error();
  ASSERT_EQ(layout.value().active().size(), 2u);
  EXPECT_EQ(layout.value().active()[0].id, 1u);
  EXPECT_EQ(layout.value().active()[1].id, 2u);
  ASSERT_EQ(layout.value().sealed().size(), 2u);
  EXPECT_EQ(layout.value().sealed()[0].id, 0u);
  EXPECT_EQ(layout.value().sealed()[1].id, 9u);
}

TEST(st_segment_layout, names_segment_topics_with_lowercase_hex_ranges_and_decimal_ids) {
  auto layout = segment_layout::from_proto(split_dag(), "topic://public/default/orders");
  ASSERT_TRUE(layout) << layout.error();
  EXPECT_EQ(layout.value().active()[0].topic, "segment://public/default/orders/0000-7fff-1");
  EXPECT_EQ(layout.value().active()[1].topic, "segment://public/default/orders/8000-ffff-2");
  EXPECT_EQ(layout.value().sealed()[0].topic, "segment://public/default/orders/0000-ffff-0");
  EXPECT_EQ(segment_layout::segment_topic_name("topic://t/n/x", 0xab, 0xcdef, 1234567),
            "segment://t/n/x/00ab-cdef-1234567");
}

TEST(st_segment_layout, keeps_parents_and_children) {
  auto layout = segment_layout::from_proto(split_dag(), "topic://public/default/orders");
  ASSERT_TRUE(layout) << layout.error();
  const auto* root = layout.value().find(0);
  ASSERT_NE(root, nullptr);
  EXPECT_TRUE(root->sealed);
  EXPECT_EQ(root->children, (std::vector<std::uint64_t>{1, 2}));
  const auto* child = layout.value().find(2);
  ASSERT_NE(child, nullptr);
  EXPECT_FALSE(child->sealed);
  EXPECT_EQ(child->parents, (std::vector<std::uint64_t>{0}));
  EXPECT_EQ(layout.value().find(7), nullptr);
}

TEST(st_segment_layout, a_legacy_segment_attaches_to_the_topic_it_wraps) {
  proto::ScalableTopicDAG dag;
  add_segment(dag, 0, 0, 0xFFFF)->set_legacy_topic_name("persistent://public/default/orders-partition-0");
  auto layout = segment_layout::from_proto(dag, "topic://public/default/orders");
  ASSERT_TRUE(layout) << layout.error();
  EXPECT_TRUE(layout.value().active()[0].is_legacy());
  EXPECT_EQ(layout.value().active()[0].topic, "persistent://public/default/orders-partition-0");
}

TEST(st_segment_layout, keeps_entry_bucket_splits) {
  proto::ScalableTopicDAG dag;
  auto* s = add_segment(dag, 0, 0, 0xFFFF);
  s->add_entry_bucket_splits(0x4000);
  s->add_entry_bucket_splits(0x8000);
  auto layout = segment_layout::from_proto(dag, "topic://public/default/orders");
  ASSERT_TRUE(layout) << layout.error();
  EXPECT_EQ(layout.value().active()[0].entry_bucket_splits, (std::vector<std::uint32_t>{0x4000, 0x8000}));
}

TEST(st_segment_layout, maps_segment_brokers_and_the_controller) {
  proto::ScalableTopicDAG dag = split_dag();
  auto* b = dag.add_segment_brokers();
  b->set_segment_id(1);
  b->set_broker_url("pulsar://b1:6650");
  b->set_broker_url_tls("pulsar+ssl://b1:6651");
  auto* b2 = dag.add_segment_brokers();
  b2->set_segment_id(2);
  b2->set_broker_url("pulsar://b2:6650");
  dag.set_controller_broker_url("pulsar://ctl:6650");
  auto layout = segment_layout::from_proto(dag, "topic://public/default/orders");
  ASSERT_TRUE(layout) << layout.error();
  ASSERT_TRUE(layout.value().broker_for(1));
  EXPECT_EQ(layout.value().broker_for(1)->url, "pulsar://b1:6650");
  EXPECT_EQ(layout.value().broker_for(1)->url_tls, "pulsar+ssl://b1:6651");
  EXPECT_EQ(layout.value().broker_for(2)->url_tls, "");
  EXPECT_FALSE(layout.value().broker_for(0));
  EXPECT_EQ(layout.value().controller_url(), "pulsar://ctl:6650");
  EXPECT_FALSE(layout.value().controller_url_tls());
}

TEST(st_segment_layout, no_controller_url_when_the_broker_gives_none) {
  auto layout = segment_layout::from_proto(split_dag(), "topic://public/default/orders");
  ASSERT_TRUE(layout) << layout.error();
  EXPECT_FALSE(layout.value().controller_url());
}

TEST(st_segment_layout, refuses_a_resolved_name_that_is_not_a_scalable_topic) {
  for (auto name : {"persistent://public/default/orders", "orders", "", "topic://public"}) {
    auto layout = segment_layout::from_proto(split_dag(), name);
    ASSERT_FALSE(layout) << name;
    EXPECT_EQ(layout.error(), client_errc::invalid_topic_name) << name;
  }
}

TEST(st_segment_layout, refuses_ranges_outside_the_ring_or_reversed) {
  for (auto [start, end] : {std::pair{0u, 0x10000u}, std::pair{0x10000u, 0x10000u}, std::pair{0x10u, 0x0Fu}}) {
    proto::ScalableTopicDAG dag;
    add_segment(dag, 0, start, end);
    auto layout = segment_layout::from_proto(dag, "topic://public/default/orders");
    ASSERT_FALSE(layout) << start << "-" << end;
    EXPECT_EQ(layout.error(), client_errc::protocol_error);
  }
}

TEST(st_segment_layout, accepts_a_one_hash_segment_at_the_top_of_the_ring) {
  proto::ScalableTopicDAG dag;
  add_segment(dag, 0, 0xFFFF, 0xFFFF);
  EXPECT_TRUE(segment_layout::from_proto(dag, "topic://public/default/orders"));
}

TEST(st_segment_layout, refuses_a_repeated_segment_id) {
  proto::ScalableTopicDAG dag;
  add_segment(dag, 0, 0, 0x7FFF);
  add_segment(dag, 0, 0x8000, 0xFFFF);
  auto layout = segment_layout::from_proto(dag, "topic://public/default/orders");
  ASSERT_FALSE(layout);
  EXPECT_EQ(layout.error(), client_errc::protocol_error);
}

}  // namespace
}  // namespace magnetar::st::detail
