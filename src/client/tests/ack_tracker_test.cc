#include "client/ack_tracker.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <limits>
#include <vector>

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

TEST(batch_ack_tracker, cumulative_acks_message_by_message_complete_the_entry_at_its_last) {
  batch_ack_tracker t;
  for (int i = 0; i < 999; ++i) ASSERT_FALSE(t.ack_cumulative(in_batch(5, i, 1000))) << i;
  EXPECT_TRUE(t.ack_cumulative(in_batch(5, 999, 1000)));
  EXPECT_EQ(t.tracked_entries(), 0u);
}

TEST(batch_ack_tracker, a_cumulative_ack_below_an_earlier_one_acks_nothing_more) {
  batch_ack_tracker t;
  EXPECT_FALSE(t.ack_cumulative(in_batch(5, 2, 4)));
  EXPECT_FALSE(t.ack_cumulative(in_batch(5, 0, 4)));
  EXPECT_TRUE(t.ack_individual(in_batch(5, 3, 4)));
}

TEST(batch_ack_tracker, a_cumulative_ack_over_individually_acked_messages_counts_them_once) {
  batch_ack_tracker t;
  EXPECT_FALSE(t.ack_individual(in_batch(5, 1, 3)));
  EXPECT_FALSE(t.ack_cumulative(in_batch(5, 1, 3)));
  EXPECT_TRUE(t.ack_individual(in_batch(5, 2, 3)));
}

TEST(batch_ack_tracker, an_id_claiming_a_larger_batch_than_its_entry_had_acks_nothing_past_it) {
  batch_ack_tracker t;
  EXPECT_FALSE(t.ack_individual(in_batch(5, 0, 2)));
  EXPECT_FALSE(t.ack_individual(in_batch(5, 7, 9)));
  EXPECT_FALSE(t.ack_cumulative(in_batch(5, 0, 9)));
  EXPECT_TRUE(t.ack_cumulative(in_batch(5, 8, 9)));  // covers the entry's own two
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

TEST(ack_set, bit_i_set_means_message_i_is_not_acked_yet) {
  // Messages 0 and 2 of 3 acked: only bit 1 is left.
  EXPECT_EQ(encode_ack_set({false, true, false}), std::vector<std::int64_t>{2});
  EXPECT_EQ(encode_ack_set({true, true, true}), std::vector<std::int64_t>{7});
}

TEST(ack_set, a_wholly_acked_batch_is_empty) { EXPECT_TRUE(encode_ack_set({false, false}).empty()); }

TEST(ack_set, batches_past_64_messages_take_more_words_little_end_first) {
  std::vector<bool> unacked(130, false);
  unacked[0] = true;
  unacked[64] = true;
  unacked[129] = true;
  EXPECT_EQ(encode_ack_set(unacked), (std::vector<std::int64_t>{1, 1, 2}));
  unacked[129] = false;
  EXPECT_EQ(encode_ack_set(unacked), (std::vector<std::int64_t>{1, 1}));  // trailing zero words dropped
}

TEST(ack_set, the_top_bit_of_a_word_is_its_sign_bit) {
  std::vector<bool> unacked(64, false);
  unacked[63] = true;
  EXPECT_EQ(encode_ack_set(unacked), std::vector<std::int64_t>{std::numeric_limits<std::int64_t>::min()});
}

TEST(ack_set, acked_in_reads_what_encode_writes) {
  const auto set = encode_ack_set({false, true, false, true});
  EXPECT_TRUE(acked_in(set, 0));
  EXPECT_FALSE(acked_in(set, 1));
  EXPECT_TRUE(acked_in(set, 2));
  EXPECT_FALSE(acked_in(set, 3));
  EXPECT_TRUE(acked_in(set, 70));  // past the words: a dropped trailing zero word
}

TEST(ack_set, an_empty_ack_set_acks_nothing) { EXPECT_FALSE(acked_in(std::vector<std::int64_t>{}, 0)); }

TEST(batch_ack_tracker, ack_set_of_names_the_messages_left) {
  batch_ack_tracker t;
  EXPECT_EQ(t.ack_set_of(in_batch(5, 0, 3)), std::vector<std::int64_t>{7});  // untracked: none acked
  t.ack_individual(in_batch(5, 1, 3));
  EXPECT_EQ(t.ack_set_of(in_batch(5, 0, 3)), std::vector<std::int64_t>{5});
  t.ack_cumulative(in_batch(6, 1, 4));
  EXPECT_EQ(t.ack_set_of(in_batch(6, 0, 4)), std::vector<std::int64_t>{12});
}

TEST(ack_grouping, a_partial_ack_is_replaced_by_a_later_one_and_dropped_by_a_whole_one) {
  ack_grouping g;
  g.add_partial(message_id(1, 5), {6});
  g.add_partial(message_id(1, 5), {4});
  g.add_partial(message_id(1, 7), {1});
  g.add_individual(message_id(1, 7));
  auto group = g.take();
  ASSERT_EQ(group.partial.size(), 1u);
  EXPECT_EQ(group.partial[0].first, message_id(1, 5));
  EXPECT_EQ(group.partial[0].second, std::vector<std::int64_t>{4});
  EXPECT_EQ(group.individual, std::vector<message_id>{message_id(1, 7)});
  EXPECT_TRUE(g.empty());
}

TEST(ack_grouping, partial_acks_count_towards_the_group_size) {
  ack_grouping g(2);
  EXPECT_FALSE(g.add_partial(message_id(1, 1), {2}));
  EXPECT_TRUE(g.add_individual(message_id(1, 2)));
}

TEST(ack_grouping, a_cumulative_ack_inside_a_batch_keeps_its_ack_set) {
  ack_grouping g;
  g.add_partial(message_id(1, 3), {1});
  g.add_individual(message_id(1, 4));
  g.add_partial_cumulative(message_id(1, 4), {12});
  EXPECT_TRUE(g.is_pending(message_id(1, 3)));
  auto group = g.take();
  EXPECT_EQ(group.cumulative, message_id(1, 4));
  EXPECT_EQ(group.cumulative_ack_set, std::vector<std::int64_t>{12});
  EXPECT_TRUE(group.partial.empty());                                      // entry 3 is covered
  EXPECT_EQ(group.individual, std::vector<message_id>{message_id(1, 4)});  // more than the partial one
}

}  // namespace
}  // namespace magnetar::client_detail
