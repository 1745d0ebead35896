#include "client/ack_tracker.h"

#include <gtest/gtest.h>

namespace magnetar::client_detail {
namespace {

message_id in_batch(std::int64_t entry, int index, int size) { return message_id(1, entry, -1, index, size); }

TEST(batch_ack_tracker, a_batched_entry_is_acked_when_its_last_message_is) {
  batch_ack_tracker t;
  EXPECT_FALSE(t.ack_individual(in_batch(5, 0, 3)));
  EXPECT_FALSE(t.ack_individual(in_batch(5, 2, 3)));
  EXPECT_TRUE(t.ack_individual(in_batch(5, 1, 3)));
  EXPECT_EQ(t.tracked_entries(), 0u);
}

TEST(batch_ack_tracker, acking_the_same_message_twice_does_not_complete_the_entry) {
  batch_ack_tracker t;
  EXPECT_FALSE(t.ack_individual(in_batch(5, 0, 2)));
  EXPECT_FALSE(t.ack_individual(in_batch(5, 0, 2)));
  EXPECT_TRUE(t.ack_individual(in_batch(5, 1, 2)));
}

TEST(batch_ack_tracker, plain_ids_and_unknown_batch_sizes_ack_at_once) {
  batch_ack_tracker t;
  EXPECT_TRUE(t.ack_individual(message_id(1, 5)));
  EXPECT_TRUE(t.ack_individual(message_id(1, 6, -1, 0, 0)));
}

TEST(batch_ack_tracker, entries_are_tracked_separately) {
  batch_ack_tracker t;
  EXPECT_FALSE(t.ack_individual(in_batch(5, 0, 2)));
  EXPECT_FALSE(t.ack_individual(in_batch(6, 0, 2)));
  EXPECT_TRUE(t.ack_individual(in_batch(6, 1, 2)));
  EXPECT_EQ(t.tracked_entries(), 1u);
}

TEST(batch_ack_tracker, a_cumulative_ack_of_the_last_message_completes_the_entry) {
  batch_ack_tracker t;
  EXPECT_TRUE(t.ack_cumulative(in_batch(5, 2, 3)));
}

TEST(batch_ack_tracker, a_cumulative_ack_inside_a_batch_leaves_the_entry_open) {
  batch_ack_tracker t;
  EXPECT_FALSE(t.ack_cumulative(in_batch(5, 1, 3)));
  EXPECT_TRUE(t.ack_individual(in_batch(5, 2, 3)));
}

TEST(batch_ack_tracker, a_cumulative_ack_forgets_earlier_entries) {
  batch_ack_tracker t;
  t.ack_individual(in_batch(3, 0, 2));
  t.ack_individual(in_batch(4, 0, 2));
  EXPECT_TRUE(t.ack_cumulative(message_id(1, 5)));
  EXPECT_EQ(t.tracked_entries(), 0u);
}

TEST(ack_grouping, individual_acks_come_out_once_in_order) {
  ack_grouping g;
  g.add_individual(message_id(1, 3));
  g.add_individual(message_id(1, 1));
  g.add_individual(message_id(1, 3));
  auto out = g.take();
  ASSERT_EQ(out.individual.size(), 2u);
  EXPECT_EQ(out.individual[0], message_id(1, 1));
  EXPECT_EQ(out.individual[1], message_id(1, 3));
  EXPECT_FALSE(out.cumulative);
  EXPECT_TRUE(g.empty());
}

TEST(ack_grouping, the_highest_cumulative_ack_wins) {
  ack_grouping g;
  g.add_cumulative(message_id(1, 5));
  g.add_cumulative(message_id(1, 3));
  auto out = g.take();
  ASSERT_TRUE(out.cumulative);
  EXPECT_EQ(*out.cumulative, message_id(1, 5));
}

TEST(ack_grouping, a_cumulative_ack_covers_individual_ones_below_it) {
  ack_grouping g;
  g.add_individual(message_id(1, 2));
  g.add_individual(message_id(1, 7));
  g.add_cumulative(message_id(1, 5));
  g.add_individual(message_id(1, 4));
  auto out = g.take();
  ASSERT_EQ(out.individual.size(), 1u);
  EXPECT_EQ(out.individual[0], message_id(1, 7));
}

TEST(ack_grouping, reports_full_at_the_group_size) {
  ack_grouping g(3);
  EXPECT_FALSE(g.add_individual(message_id(1, 1)));
  EXPECT_FALSE(g.add_individual(message_id(1, 2)));
  EXPECT_TRUE(g.add_individual(message_id(1, 3)));
}

TEST(ack_grouping, knows_what_is_pending) {
  ack_grouping g;
  g.add_individual(message_id(1, 9));
  g.add_cumulative(message_id(1, 5));
  EXPECT_TRUE(g.is_pending(message_id(1, 9)));
  EXPECT_TRUE(g.is_pending(message_id(1, 4)));
  EXPECT_FALSE(g.is_pending(message_id(1, 6)));
}

}  // namespace
}  // namespace magnetar::client_detail
