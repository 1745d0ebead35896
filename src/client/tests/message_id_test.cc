#include "magnetar/message_id.h"
#include "magnetar/errc.h"
#include "proto/pulsar_api.pb.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <vector>

namespace magnetar {
namespace {

TEST(message_id, orders_by_ledger_then_entry_then_batch_index) {
  EXPECT_LT(message_id(1, 9), message_id(2, 0));
  EXPECT_LT(message_id(2, 0), message_id(2, 1));
  EXPECT_LT(message_id(2, 1, -1, 0), message_id(2, 1, -1, 1));
  EXPECT_LT(message_id(2, 1, -1, 5), message_id(2, 2, -1, 0));
  EXPECT_EQ(message_id(3, 4, -1, 2), message_id(3, 4, -1, 2, 10));
}

TEST(message_id, a_plain_entry_id_sorts_before_its_batch_messages) {
  EXPECT_LT(message_id(2, 1), message_id(2, 1, -1, 0));
}

TEST(message_id, earliest_and_latest_bound_every_stored_id) {
  std::vector<message_id> ids{message_id::latest(), message_id(5, 0), message_id::earliest(), message_id(0, 0)};
  std::sort(ids.begin(), ids.end());
  EXPECT_EQ(ids.front(), message_id::earliest());
  EXPECT_EQ(ids.back(), message_id::latest());
  EXPECT_EQ(message_id(), message_id::earliest());
}

TEST(message_id, serialize_round_trips) {
  for (const auto& id : {message_id(7, 8), message_id(7, 8, 3, 2, 10), message_id::earliest(), message_id::latest()}) {
    auto back = message_id::deserialize(id.serialize());
    ASSERT_TRUE(back) << back.error();
    EXPECT_EQ(back.value(), id);
    EXPECT_EQ(back.value().partition(), id.partition());
    EXPECT_EQ(back.value().batch_size(), id.batch_size());
  }
}

TEST(message_id, serialize_writes_the_protocol_message_id) {
  proto::MessageIdData d;
  ASSERT_TRUE(d.ParseFromString(message_id(7, 8, 3, 2).serialize()));
  EXPECT_EQ(d.ledgerid(), 7u);
  EXPECT_EQ(d.entryid(), 8u);
  EXPECT_EQ(d.partition(), 3);
  EXPECT_EQ(d.batch_index(), 2);
}

TEST(message_id, bytes_that_are_no_id_are_refused) {
  auto r = message_id::deserialize("\xff\xff garbage");
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error(), client_errc::invalid_argument);
  EXPECT_FALSE(message_id::deserialize(""));
}

TEST(message_id, prints_as_upstream_does) {
  EXPECT_EQ(message_id(1, 2, 3, 4).to_string(), "1:2:3:4");
  EXPECT_EQ(message_id(1, 2).to_string(), "1:2:-1:-1");
}

TEST(message_id, entry_drops_the_batch_index) {
  EXPECT_EQ(message_id(1, 2, 0, 4, 5).entry(), message_id(1, 2, 0));
  EXPECT_FALSE(message_id(1, 2, 0, 4, 5).entry().is_batched());
}

}  // namespace
}  // namespace magnetar
