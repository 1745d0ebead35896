#include "perf/measure/catch_up_tracker.h"

#include <gtest/gtest.h>

namespace magnetar::perf {
namespace {

std::function<std::uint64_t()> count(std::uint64_t n) {
  return [n] { return n; };
}

TEST(catch_up_tracker, nothing_counts_before_the_join) {
  catch_up_tracker tracker(1, 1000);
  EXPECT_FALSE(tracker.received(0, 5000, 5100, count(1)));
  EXPECT_EQ(tracker.caught_up_millis(), 0);
}

TEST(catch_up_tracker, an_old_message_does_not_catch_up) {
  catch_up_tracker tracker(1, 1000);
  tracker.joined(20'000);
  EXPECT_FALSE(tracker.received(0, 1'000, 21'000, count(2)));
  EXPECT_EQ(tracker.caught_up_millis(), 0);
}

TEST(catch_up_tracker, catches_up_when_every_topic_delivered_within_the_threshold) {
  catch_up_tracker tracker(2, 1000);
  tracker.joined(20'000);
  EXPECT_FALSE(tracker.received(0, 21'000, 22'000, count(3)));  // at the threshold's boundary
  EXPECT_EQ(tracker.caught_up_millis(), 0);
  EXPECT_TRUE(tracker.received(1, 22'500, 23'000, count(400)));
  EXPECT_EQ(tracker.caught_up_millis(), 23'000);
  EXPECT_EQ(tracker.messages_when_caught_up(), 400u);
}

TEST(catch_up_tracker, the_first_catch_up_counts) {
  catch_up_tracker tracker(1, 1000);
  tracker.joined(20'000);
  EXPECT_TRUE(tracker.received(0, 22'900, 23'000, count(400)));
  EXPECT_FALSE(tracker.received(0, 30'000, 30'001, count(500)));
  EXPECT_EQ(tracker.caught_up_millis(), 23'000);
  EXPECT_EQ(tracker.messages_when_caught_up(), 400u);
}

TEST(catch_up_tracker, catches_up_at_the_latest_topics_receipt_when_recorded_out_of_order) {
  catch_up_tracker tracker(2, 1000);
  tracker.joined(20'000);
  // Topic 1's receipt at 25 s is recorded before topic 0's at 24 s.
  EXPECT_FALSE(tracker.received(1, 24'800, 25'000, count(10)));
  EXPECT_TRUE(tracker.received(0, 23'900, 24'000, count(11)));
  EXPECT_EQ(tracker.caught_up_millis(), 25'000);
}

TEST(catch_up_tracker, a_later_recorded_earlier_receipt_of_the_same_topic_moves_its_time) {
  catch_up_tracker tracker(2, 1000);
  tracker.joined(20'000);
  EXPECT_FALSE(tracker.received(0, 26'000, 26'500, count(1)));
  EXPECT_FALSE(tracker.received(0, 23'000, 23'500, count(2)));  // recorded late, received earlier
  EXPECT_TRUE(tracker.received(1, 24'000, 24'500, count(3)));
  EXPECT_EQ(tracker.caught_up_millis(), 24'500);
}

TEST(catch_up_tracker, catches_up_in_the_millisecond_it_joined) {
  catch_up_tracker tracker(1, 1000);
  tracker.joined(70'000);
  EXPECT_TRUE(tracker.received(0, 69'990, 70'000, count(10)));
  EXPECT_EQ(tracker.caught_up_millis(), tracker.join_millis());
}

TEST(catch_up_tracker, an_unknown_topic_is_ignored) {
  catch_up_tracker tracker(1, 1000);
  tracker.joined(1'000);
  EXPECT_FALSE(tracker.received(-1, 1'000, 1'001, count(1)));
  EXPECT_FALSE(tracker.received(1, 1'000, 1'001, count(1)));
  EXPECT_EQ(tracker.caught_up_millis(), 0);
}

}  // namespace
}  // namespace magnetar::perf
