#include "broker/scalable/assignment.h"

#include <gtest/gtest.h>

namespace magnetar::broker::scalable {
namespace {

const topic_parts orders{"public", "default", "orders"};

std::vector<std::uint64_t> ids(const consumer_assignment& a) {
  std::vector<std::uint64_t> out;
  for (const auto& s : a.segments) out.push_back(s.id);
  return out;
}

TEST(Assignment, OneConsumerGetsEveryRootSegment) {
  auto layout = segment_layout::initial(2, 0).value();
  auto a = compute_assignments(layout, orders, {"c1"}, {});
  EXPECT_EQ(ids(a["c1"]), (std::vector<std::uint64_t>{0, 1}));
  EXPECT_EQ(a["c1"].segments[1].topic, "segment://public/default/orders/8000-ffff-1");
}

TEST(Assignment, ChildrenWaitUntilTheParentDrained) {
  auto layout = segment_layout::initial(1, 0).value().split(0, 1).value().layout;
  EXPECT_EQ(ids(compute_assignments(layout, orders, {"c1"}, {})["c1"]), (std::vector<std::uint64_t>{0}));
  // By range: [0, 7fff] sorts before [0, ffff].
  EXPECT_EQ(ids(compute_assignments(layout, orders, {"c1"}, {0})["c1"]), (std::vector<std::uint64_t>{1, 0, 2}));
}

TEST(Assignment, MergedChildWaitsForBothParents) {
  auto layout = segment_layout::initial(2, 0).value().merge(0, 1, 1).value().layout;
  EXPECT_EQ(ids(compute_assignments(layout, orders, {"c"}, {0})["c"]), (std::vector<std::uint64_t>{0, 1}));
  EXPECT_EQ(ids(compute_assignments(layout, orders, {"c"}, {0, 1})["c"]), (std::vector<std::uint64_t>{0, 2, 1}));
}

TEST(Assignment, SealedGrandchildWaitsForItsParent) {
  auto layout = segment_layout::initial(1, 0).value().split(0, 1).value().layout.split(1, 2).value().layout;
  auto a = compute_assignments(layout, orders, {"c"}, {});
  EXPECT_EQ(ids(a["c"]), (std::vector<std::uint64_t>{0}));
}

TEST(Assignment, SegmentsGoRoundRobinOverConsumersSortedByName) {
  auto layout = segment_layout::initial(4, 0).value();
  auto a = compute_assignments(layout, orders, {"b", "a"}, {});
  EXPECT_EQ(ids(a["a"]), (std::vector<std::uint64_t>{0, 2}));
  EXPECT_EQ(ids(a["b"]), (std::vector<std::uint64_t>{1, 3}));
}

TEST(Assignment, ConsumersBeyondSegmentsGetAnEmptyAssignment) {
  auto layout = segment_layout::initial(1, 0).value();
  auto a = compute_assignments(layout, orders, {"a", "b"}, {});
  EXPECT_EQ(a["b"].segments.size(), 0u);
  EXPECT_EQ(a["b"].layout_epoch, layout.epoch);
}

TEST(Assignment, DrainCandidatesAreSealedAssignableUndrainedSegments) {
  auto layout = segment_layout::initial(1, 0).value().split(0, 1).value().layout.split(1, 2).value().layout;
  EXPECT_EQ(drain_candidates(layout, {}), (std::vector<std::uint64_t>{0}));
  EXPECT_EQ(drain_candidates(layout, {0}), (std::vector<std::uint64_t>{1}));
}

}  // namespace
}  // namespace magnetar::broker::scalable
