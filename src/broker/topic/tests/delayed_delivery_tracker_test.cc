// The delayed delivery tracker on its own: what it holds, when entries come due, and how
// the tick spaces the dispatcher's wake-ups.
#include "broker/topic/delayed_delivery_tracker.h"

#include <gtest/gtest.h>

namespace magnetar::broker {
namespace {

using namespace std::chrono_literals;

mledger::position at(std::int64_t entry) { return {ledger_id(3), entry_id(entry)}; }

std::vector<mledger::position> positions(const std::vector<delayed_delivery_tracker::due_entry>& due) {
  std::vector<mledger::position> out;
  for (const auto& d : due) out.push_back(d.pos);
  return out;
}

TEST(delayed_delivery_tracker, an_entry_due_already_is_not_held) {
  delayed_delivery_tracker t(100ms);
  EXPECT_FALSE(t.add(at(0), 0, 1'000, 1'000));
  EXPECT_FALSE(t.add(at(1), 0, 999, 1'000));
  EXPECT_TRUE(t.empty());
}

TEST(delayed_delivery_tracker, an_entry_ahead_is_held_once) {
  delayed_delivery_tracker t(100ms);
  EXPECT_TRUE(t.add(at(0), 7, 1'001, 1'000));
  EXPECT_FALSE(t.add(at(0), 7, 1'001, 1'000));
  EXPECT_TRUE(t.contains(at(0)));
  EXPECT_EQ(t.size(), 1u);
}

TEST(delayed_delivery_tracker, entries_come_due_at_their_time_and_not_before) {
  delayed_delivery_tracker t(1ms);
  ASSERT_TRUE(t.add(at(0), 0, 2'000, 1'000));
  EXPECT_TRUE(t.take_due(1'999).empty());
  auto due = t.take_due(2'000);
  ASSERT_EQ(due.size(), 1u);
  EXPECT_EQ(due.front().pos, at(0));
  EXPECT_TRUE(t.empty());
}

TEST(delayed_delivery_tracker, due_entries_come_in_topic_order_with_their_key_hash) {
  delayed_delivery_tracker t(1ms);
  // Later entries due earlier: the replay set still wants them in topic order.
  ASSERT_TRUE(t.add(at(5), 50, 1'300, 1'000));
  ASSERT_TRUE(t.add(at(2), 20, 1'200, 1'000));
  ASSERT_TRUE(t.add(at(9), 90, 1'100, 1'000));
  ASSERT_TRUE(t.add(at(7), 70, 5'000, 1'000));
  auto due = t.take_due(1'300);
  EXPECT_EQ(positions(due), (std::vector<mledger::position>{at(2), at(5), at(9)}));
  EXPECT_EQ(due[0].key_hash, 20);
  EXPECT_EQ(due[2].key_hash, 90);
  EXPECT_EQ(t.size(), 1u);
}

TEST(delayed_delivery_tracker, the_next_wakeup_is_the_earliest_due_time) {
  delayed_delivery_tracker t(100ms);
  EXPECT_FALSE(t.next_wakeup_ms());
  ASSERT_TRUE(t.add(at(0), 0, 5'000, 1'000));
  ASSERT_TRUE(t.add(at(1), 0, 3'000, 1'000));
  EXPECT_EQ(t.next_wakeup_ms(), 3'000);
}

TEST(delayed_delivery_tracker, the_tick_spaces_wakeups_after_a_look) {
  delayed_delivery_tracker t(1000ms);
  ASSERT_TRUE(t.add(at(0), 0, 2'100, 1'000));
  EXPECT_TRUE(t.take_due(2'000).empty());
  // Due at 2'100, but the dispatcher looked at 2'000: not again before 3'000.
  EXPECT_EQ(t.next_wakeup_ms(), 3'000);
  ASSERT_TRUE(t.add(at(1), 0, 9'000, 2'000));
  EXPECT_EQ(positions(t.take_due(3'000)), std::vector<mledger::position>{at(0)});
  EXPECT_EQ(t.next_wakeup_ms(), 9'000);
}

TEST(delayed_delivery_tracker, clear_forgets_everything) {
  delayed_delivery_tracker t(1ms);
  ASSERT_TRUE(t.add(at(0), 0, 2'000, 1'000));
  t.clear();
  EXPECT_TRUE(t.empty());
  EXPECT_FALSE(t.contains(at(0)));
  EXPECT_FALSE(t.next_wakeup_ms());
  EXPECT_TRUE(t.add(at(0), 0, 2'000, 1'000));
}

}  // namespace
}  // namespace magnetar::broker
