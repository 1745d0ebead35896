#include "client/st/position_tracker.h"

#include <gtest/gtest.h>

namespace magnetar::st::detail {
namespace {

using classic = magnetar::message_id;

TEST(st_position_tracker, a_delivery_snapshot_holds_every_segments_latest) {
  position_tracker t;
  t.deliver(0, classic(1, 1));
  t.deliver(1, classic(2, 1));
  auto v = t.deliver(0, classic(1, 2));
  EXPECT_EQ(*v, (position_vector{{0, classic(1, 2)}, {1, classic(2, 1)}}));
}

TEST(st_position_tracker, earlier_snapshots_do_not_change) {
  position_tracker t;
  auto first = t.deliver(0, classic(1, 1));
  t.deliver(0, classic(1, 2));
  t.deliver(1, classic(2, 1));
  EXPECT_EQ(*first, (position_vector{{0, classic(1, 1)}}));
}

TEST(st_position_tracker, a_dropped_segment_leaves_later_snapshots) {
  position_tracker t;
  t.deliver(0, classic(1, 1));
  auto before = t.deliver(1, classic(2, 1));
  t.drop(0);
  EXPECT_EQ(*t.snapshot(), (position_vector{{1, classic(2, 1)}}));
  EXPECT_FALSE(t.latest(0));
  EXPECT_EQ(t.latest(1), classic(2, 1));
  EXPECT_EQ(before->size(), 2u);
  t.drop(7);  // unknown: nothing happens
  EXPECT_EQ(t.snapshot()->size(), 1u);
}

TEST(st_position_tracker, starts_empty) {
  position_tracker t;
  EXPECT_TRUE(t.snapshot()->empty());
  EXPECT_FALSE(t.latest(0));
}

}  // namespace
}  // namespace magnetar::st::detail
