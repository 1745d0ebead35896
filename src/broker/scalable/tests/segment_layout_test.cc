#include "broker/scalable/segment_layout.h"

#include "broker/api/errc.h"

#include <gtest/gtest.h>

namespace magnetar::broker::scalable {
namespace {

TEST(SegmentLayout, InitialSegmentsCoverTheRingInEqualParts) {
  auto layout = segment_layout::initial(3, 1000).value();
  auto active = layout.active();
  ASSERT_EQ(active.size(), 3u);
  EXPECT_EQ(active[0]->range, (hash_range{0, 21844}));
  EXPECT_EQ(active[1]->range, (hash_range{21845, 43689}));
  EXPECT_EQ(active[2]->range, (hash_range{43690, 0xFFFF}));
  EXPECT_EQ(layout.next_segment_id, 3u);
  EXPECT_EQ(layout.epoch, 0u);
}

TEST(SegmentLayout, InitialCountBelowOneIsRefused) {
  auto layout = segment_layout::initial(0, 0);
  ASSERT_FALSE(layout);
  EXPECT_EQ(layout.error().code(), errc::precondition_failed);
  EXPECT_EQ(layout.error().detail(), "numInitialSegments must be >= 1");
}

TEST(SegmentLayout, SplitSealsTheParentAndHalvesItsRange) {
  auto change = segment_layout::initial(1, 1).value().split(0, 5).value();
  const auto& l = change.layout;
  EXPECT_EQ(l.epoch, 1u);
  EXPECT_EQ(change.created, (std::vector<std::uint64_t>{1, 2}));
  EXPECT_FALSE(l.find(0)->active());
  EXPECT_EQ(l.find(0)->children, (std::vector<std::uint64_t>{1, 2}));
  EXPECT_EQ(l.find(0)->sealed_at_epoch, 1);
  EXPECT_EQ(l.find(0)->sealed_at_ms, 5);
  EXPECT_EQ(l.find(1)->range, (hash_range{0, 0x7FFF}));
  EXPECT_EQ(l.find(2)->range, (hash_range{0x8000, 0xFFFF}));
  EXPECT_EQ(l.find(2)->parents, (std::vector<std::uint64_t>{0}));
  EXPECT_EQ(l.next_segment_id, 3u);
}

TEST(SegmentLayout, SplitOfSealedSegmentIsRefused) {
  auto once = segment_layout::initial(1, 1).value().split(0, 5).value().layout;
  auto again = once.split(0, 6);
  ASSERT_FALSE(again);
  EXPECT_EQ(again.error().detail(), "Cannot split non-active segment: 0");
}

TEST(SegmentLayout, SplitOfUnknownSegmentIsNotFound) {
  auto split = segment_layout::initial(1, 1).value().split(7, 5);
  ASSERT_FALSE(split);
  EXPECT_EQ(split.error().code(), errc::topic_not_found);
}

TEST(SegmentLayout, MergeOfAdjacentSegmentsCoversTheirUnion) {
  auto split = segment_layout::initial(1, 1).value().split(0, 5).value().layout;
  auto change = split.merge(1, 2, 9).value();
  const auto& l = change.layout;
  EXPECT_EQ(change.created, (std::vector<std::uint64_t>{3}));
  EXPECT_EQ(l.find(3)->range, (hash_range{0, 0xFFFF}));
  EXPECT_EQ(l.find(3)->parents, (std::vector<std::uint64_t>{1, 2}));
  EXPECT_FALSE(l.find(1)->active());
  EXPECT_FALSE(l.find(2)->active());
  EXPECT_EQ(l.epoch, 2u);
  EXPECT_EQ(l.active().size(), 1u);
}

TEST(SegmentLayout, MergeOfNonAdjacentSegmentsIsRefused) {
  auto l = segment_layout::initial(3, 1).value();
  auto merged = l.merge(0, 2, 2);
  ASSERT_FALSE(merged);
  EXPECT_EQ(merged.error().code(), errc::precondition_failed);
  EXPECT_NE(merged.error().detail().find("not adjacent"), std::string::npos);
}

TEST(SegmentLayout, MergeOfASegmentWithItselfIsRefused) {
  EXPECT_FALSE(segment_layout::initial(2, 1).value().merge(0, 0, 2));
}

TEST(SegmentLayout, SegmentTopicNameUsesLowercaseHexAndDecimalId) {
  segment_info s;
  s.id = 12;
  s.range = {0x8000, 0xffff};
  EXPECT_EQ(segment_topic_name("public", "default", "orders", s), "segment://public/default/orders/8000-ffff-12");
}

}  // namespace
}  // namespace magnetar::broker::scalable
