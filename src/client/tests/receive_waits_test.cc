#include "client/receive_waits.h"

#include <gtest/gtest.h>

#include <optional>

namespace magnetar::client_detail {
namespace {

TEST(receive_waits, with_no_receive_blocked_an_arrival_wakes_no_one) {
  receive_waits waits;
  EXPECT_FALSE(waits.any_can_go_on(1000, 1 << 20));
}

TEST(receive_waits, a_receive_of_one_message_goes_on_at_the_first) {
  receive_waits waits;
  const receive_waits::scope blocked(waits, 1, 1);
  EXPECT_FALSE(waits.any_can_go_on(0, 0));
  EXPECT_TRUE(waits.any_can_go_on(1, 100));
}

TEST(receive_waits, a_batch_receive_goes_on_only_at_its_count) {
  receive_waits waits;
  const receive_waits::scope blocked(waits, 3, 1 << 20);
  EXPECT_FALSE(waits.any_can_go_on(2, 200));
  EXPECT_TRUE(waits.any_can_go_on(3, 300));
}

TEST(receive_waits, a_batch_receive_goes_on_at_its_bytes) {
  receive_waits waits;
  const receive_waits::scope blocked(waits, 1000, 500);
  EXPECT_FALSE(waits.any_can_go_on(4, 499));
  EXPECT_TRUE(waits.any_can_go_on(5, 500));
}

TEST(receive_waits, a_receive_that_stops_waiting_leaves_the_others_needs) {
  receive_waits waits;
  const receive_waits::scope batch(waits, 10, 1 << 20);
  {
    const receive_waits::scope single(waits, 1, 1);
    EXPECT_TRUE(waits.any_can_go_on(1, 10));
  }
  EXPECT_FALSE(waits.any_can_go_on(1, 10));
  EXPECT_TRUE(waits.any_can_go_on(10, 100));
}

}  // namespace
}  // namespace magnetar::client_detail
