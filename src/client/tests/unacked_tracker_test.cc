#include "client/unacked_tracker.h"

#include <gtest/gtest.h>

namespace magnetar::client_detail {
namespace {

using namespace std::chrono_literals;

// Ticks until `id`'s entry comes out (or `limit` ticks pass).
int ticks_until_expired(unacked_tracker& t, const message_id& id, int limit = 100) {
  for (int i = 1; i <= limit; ++i) {
    for (const auto& e : t.tick()) {
      if (e == id.entry()) return i;
    }
  }
  return -1;
}

TEST(unacked_tracker, an_entry_expires_between_timeout_and_timeout_plus_a_tick) {
  unacked_tracker t(1s, 100ms);
  t.add(message_id(1, 2));
  // Added just before a tick ends: 10 whole ticks must still pass, then at most one more.
  EXPECT_EQ(ticks_until_expired(t, message_id(1, 2)), 11);
  EXPECT_TRUE(t.empty());
}

TEST(unacked_tracker, an_acked_entry_does_not_expire) {
  unacked_tracker t(1s, 100ms);
  t.add(message_id(1, 2));
  t.add(message_id(1, 3));
  t.remove(message_id(1, 2));
  std::vector<message_id> expired;
  for (int i = 0; i < 20; ++i) {
    for (const auto& e : t.tick()) expired.push_back(e);
  }
  ASSERT_EQ(expired.size(), 1u);
  EXPECT_EQ(expired[0], message_id(1, 3));
}

TEST(unacked_tracker, the_messages_of_a_batch_are_one_entry) {
  unacked_tracker t(1s, 1s);
  t.add(message_id(1, 2, -1, 0, 2));
  t.add(message_id(1, 2, -1, 1, 2));
  EXPECT_EQ(t.size(), 1u);
  t.remove(message_id(1, 2, -1, 1, 2));
  EXPECT_TRUE(t.empty());
}

TEST(unacked_tracker, taking_an_entry_again_keeps_its_first_time) {
  unacked_tracker t(1s, 500ms);
  t.add(message_id(1, 2));
  t.tick();
  t.add(message_id(1, 2));
  EXPECT_EQ(ticks_until_expired(t, message_id(1, 2)), 2);
}

TEST(unacked_tracker, a_cumulative_ack_removes_everything_up_to_it) {
  unacked_tracker t(1s, 1s);
  t.add(message_id(1, 2));
  t.tick();
  t.add(message_id(1, 3));
  t.add(message_id(1, 4));
  t.remove_upto(message_id(1, 3, -1, 0, 5));
  EXPECT_EQ(t.size(), 1u);
  t.tick();
  auto expired = t.tick();
  ASSERT_EQ(expired.size(), 1u);
  EXPECT_EQ(expired[0], message_id(1, 4));
}

TEST(unacked_tracker, a_tick_longer_than_the_timeout_is_the_timeout) {
  unacked_tracker t(2s, 10s);
  EXPECT_EQ(t.tick_interval(), 2s);
  t.add(message_id(1, 1));
  EXPECT_EQ(ticks_until_expired(t, message_id(1, 1)), 2);
}

TEST(unacked_tracker, clear_forgets_everything) {
  unacked_tracker t(1s, 100ms);
  t.add(message_id(1, 1));
  t.clear();
  EXPECT_TRUE(t.empty());
  EXPECT_EQ(ticks_until_expired(t, message_id(1, 1), 30), -1);
}

}  // namespace
}  // namespace magnetar::client_detail
