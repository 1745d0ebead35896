#include "client/backoff.h"

#include <gtest/gtest.h>

namespace magnetar::client_detail {
namespace {

using std::chrono::milliseconds;

TEST(backoff, doubles_from_the_initial_delay) {
  backoff b(milliseconds(100), milliseconds(30'000));
  EXPECT_EQ(b.next(), milliseconds(100));
  EXPECT_EQ(b.next(), milliseconds(200));
  EXPECT_EQ(b.next(), milliseconds(400));
  EXPECT_EQ(b.next(), milliseconds(800));
}

TEST(backoff, stops_growing_at_the_maximum) {
  backoff b(milliseconds(100), milliseconds(1000));
  for (int i = 0; i < 4; ++i) b.next();  // 100 200 400 800
  EXPECT_EQ(b.next(), milliseconds(1000));
  EXPECT_EQ(b.next(), milliseconds(1000));
}

TEST(backoff, a_moving_topic_is_tried_again_within_the_moving_cap) {
  backoff b(milliseconds(100), milliseconds(30'000));
  for (int i = 0; i < 6; ++i) b.next();  // 100 ... 3200
  EXPECT_EQ(b.next(true), backoff::topic_moving_cap);
  EXPECT_EQ(b.next(true), backoff::topic_moving_cap);
  EXPECT_EQ(b.next(), milliseconds(25'600)) << "other failures still back off in full";
}

TEST(backoff, a_moving_topic_keeps_shorter_delays) {
  backoff b(milliseconds(100), milliseconds(30'000));
  EXPECT_EQ(b.next(true), milliseconds(100));
}

TEST(backoff, reset_starts_over) {
  backoff b(milliseconds(100), milliseconds(1000));
  b.next();
  b.next();
  b.reset();
  EXPECT_EQ(b.next(), milliseconds(100));
}

TEST(backoff, a_maximum_below_the_initial_delay_is_the_initial_delay) {
  backoff b(milliseconds(500), milliseconds(100));
  EXPECT_EQ(b.next(), milliseconds(500));
  EXPECT_EQ(b.next(), milliseconds(500));
}

TEST(backoff, a_zero_initial_delay_still_waits) {
  backoff b(milliseconds(0), milliseconds(10));
  EXPECT_GT(b.next(), milliseconds(0));
}

}  // namespace
}  // namespace magnetar::client_detail
