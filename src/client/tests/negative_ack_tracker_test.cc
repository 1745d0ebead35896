#include "client/negative_ack_tracker.h"

#include <gtest/gtest.h>

namespace magnetar::client_detail {
namespace {

using namespace std::chrono_literals;
using clock = negative_ack_tracker::clock;

const clock::time_point t0 = clock::time_point() + 1h;

TEST(negative_ack_tracker, an_entry_is_due_after_the_delay) {
  negative_ack_tracker t(1s);
  t.add(message_id(1, 2), t0);
  EXPECT_TRUE(t.take_due(t0 + 999ms).empty());
  auto due = t.take_due(t0 + 1s);
  ASSERT_EQ(due.size(), 1u);
  EXPECT_EQ(due[0], message_id(1, 2));
  EXPECT_TRUE(t.empty());
}

TEST(negative_ack_tracker, messages_of_one_batch_are_one_entry) {
  negative_ack_tracker t(1s);
  t.add(message_id(1, 2, -1, 0, 3), t0);
  t.add(message_id(1, 2, -1, 2, 3), t0 + 10ms);
  auto due = t.take_due(t0 + 2s);
  ASSERT_EQ(due.size(), 1u);
  EXPECT_EQ(due[0], message_id(1, 2));
  EXPECT_FALSE(due[0].is_batched());
}

TEST(negative_ack_tracker, entries_due_together_are_taken_together_in_id_order) {
  negative_ack_tracker t(1s);
  t.add(message_id(1, 9), t0);
  t.add(message_id(1, 3), t0 + 100ms);
  t.add(message_id(1, 5), t0 + 5s);
  auto due = t.take_due(t0 + 2s);
  ASSERT_EQ(due.size(), 2u);
  EXPECT_EQ(due[0], message_id(1, 3));
  EXPECT_EQ(due[1], message_id(1, 9));
  EXPECT_EQ(t.size(), 1u);
}

TEST(negative_ack_tracker, a_second_nack_does_not_postpone_the_first) {
  negative_ack_tracker t(1s);
  t.add(message_id(1, 2), t0);
  t.add(message_id(1, 2), t0 + 900ms);
  EXPECT_EQ(t.take_due(t0 + 1s).size(), 1u);
}

TEST(negative_ack_tracker, next_due_is_the_earliest_deadline) {
  negative_ack_tracker t(1s);
  EXPECT_FALSE(t.next_due());
  t.add(message_id(1, 7), t0 + 200ms);
  t.add(message_id(1, 8), t0 + 300ms);
  EXPECT_EQ(t.next_due(), t0 + 1200ms);
}

TEST(negative_ack_tracker, the_delay_is_at_least_100_ms_as_upstream) {
  EXPECT_EQ(negative_ack_tracker(0ms).delay(), 100ms);
  EXPECT_EQ(negative_ack_tracker(1min).delay(), 1min);
}

TEST(negative_ack_tracker, remove_and_clear_forget_nacks) {
  negative_ack_tracker t(1s);
  t.add(message_id(1, 2), t0);
  t.add(message_id(1, 3), t0);
  t.remove(message_id(1, 2, -1, 1, 4));  // any message of the entry names it
  auto due = t.take_due(t0 + 1s);
  ASSERT_EQ(due.size(), 1u);
  EXPECT_EQ(due[0], message_id(1, 3));
  t.add(message_id(1, 4), t0);
  t.clear();
  EXPECT_TRUE(t.empty());
}

}  // namespace
}  // namespace magnetar::client_detail
