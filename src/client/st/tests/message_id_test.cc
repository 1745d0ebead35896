#include "magnetar/st/message_id.h"

#include "magnetar/errc.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <vector>

namespace magnetar::st {
namespace {

using classic = magnetar::message_id;

TEST(st_message_id, a_default_id_is_empty_and_falsy) {
  message_id id;
  EXPECT_TRUE(id.empty());
  EXPECT_FALSE(id);
  EXPECT_EQ(id.segment_id(), -1);
  EXPECT_TRUE(message_id(0, classic(1, 2)));
}

TEST(st_message_id, orders_by_segment_then_segment_message_id) {
  EXPECT_LT(message_id(1, classic(9, 9)), message_id(2, classic(0, 0)));
  EXPECT_LT(message_id(2, classic(0, 0)), message_id(2, classic(0, 1)));
  EXPECT_LT(message_id(2, classic(3, 1, -1, 0)), message_id(2, classic(3, 1, -1, 1)));
}

TEST(st_message_id, the_empty_id_sorts_first_and_equals_only_itself) {
  std::vector<message_id> ids{message_id(0, classic(1, 1)), message_id::earliest(), message_id(), message_id::latest()};
  std::sort(ids.begin(), ids.end());
  EXPECT_TRUE(ids.front().empty());
  EXPECT_EQ(ids[1], message_id::earliest());
  EXPECT_EQ(message_id(), message_id());
  EXPECT_NE(message_id(), message_id::earliest());
}

TEST(st_message_id, the_position_vector_and_topic_take_no_part_in_equality) {
  auto vector = std::make_shared<const position_vector>(position_vector{{0, classic(1, 1)}, {1, classic(2, 2)}});
  message_id a(1, classic(2, 2), vector);
  a.set_topic_name("topic://t/n/x");
  message_id b(1, classic(2, 2));
  EXPECT_EQ(a, b);
  EXPECT_EQ(a.positions().size(), 2u);
  EXPECT_TRUE(b.positions().empty());
}

TEST(st_message_id, serialize_round_trips_segment_id_vector_and_topic) {
  auto vector =
      std::make_shared<const position_vector>(position_vector{{0, classic(10, 5)}, {3, classic(11, 7, -1, 2, 4)}});
  message_id id(3, classic(11, 7, -1, 2, 4), vector);
  id.set_topic_name("topic://public/default/orders");
  auto back = message_id::deserialize(id.serialize());
  ASSERT_TRUE(back) << back.error();
  EXPECT_EQ(back.value(), id);
  EXPECT_EQ(back.value().segment_id(), 3);
  EXPECT_EQ(back.value().positions(), *vector);
  EXPECT_EQ(back.value().topic_name(), "topic://public/default/orders");
  EXPECT_EQ(back.value().segment_message_id().batch_size(), 4);
}

TEST(st_message_id, serialize_round_trips_the_sentinels_and_the_empty_id) {
  for (const auto& id : {message_id::earliest(), message_id::latest(), message_id(), message_id(0, classic(0, 0))}) {
    auto back = message_id::deserialize(id.serialize());
    ASSERT_TRUE(back) << back.error();
    EXPECT_EQ(back.value(), id) << id;
    EXPECT_EQ(back.value().empty(), id.empty());
    EXPECT_TRUE(back.value().topic_name().empty());
  }
}

TEST(st_message_id, serialize_writes_the_big_endian_v5_layout) {
  const message_id id(5, classic(1, 2));
  const std::string bytes = id.serialize();
  const std::string inner = classic(1, 2).serialize();
  std::string expected;
  expected += std::string("\0\0\0\0\0\0\0\x05", 8);                        // segment id
  expected += std::string("\0\0\0", 3) + static_cast<char>(inner.size());  // classic id length
  expected += inner;
  expected += std::string("\0\0\0\0", 4);          // empty vector
  expected += std::string("\xff\xff\xff\xff", 4);  // no topic
  expected += std::string("\xff\xff\xff\xff", 4);  // no multi-topic vector
  EXPECT_EQ(bytes, expected);
}

TEST(st_message_id, deserialize_accepts_a_form_cut_after_any_section) {
  auto vector = std::make_shared<const position_vector>(position_vector{{2, classic(4, 4)}});
  message_id id(2, classic(4, 4), vector);
  id.set_topic_name("topic://t/n/x");
  const std::string full = id.serialize();
  const std::size_t after_id = 8 + 4 + classic(4, 4).serialize().size();
  auto cut_after_id = message_id::deserialize(full.substr(0, after_id));
  ASSERT_TRUE(cut_after_id) << cut_after_id.error();
  EXPECT_EQ(cut_after_id.value(), id);
  EXPECT_TRUE(cut_after_id.value().positions().empty());
  const std::size_t after_vector = full.size() - 4 - (4 + std::string("topic://t/n/x").size());
  auto cut_after_vector = message_id::deserialize(full.substr(0, after_vector));
  ASSERT_TRUE(cut_after_vector) << cut_after_vector.error();
  EXPECT_EQ(cut_after_vector.value().positions(), *vector);
  EXPECT_TRUE(cut_after_vector.value().topic_name().empty());
}

TEST(st_message_id, deserialize_refuses_bytes_cut_inside_a_section) {
  message_id id(2, classic(4, 4), std::make_shared<const position_vector>(position_vector{{2, classic(4, 4)}}));
  const std::string full = id.serialize();
  for (std::size_t n : {std::size_t{0}, std::size_t{5}, std::size_t{10}, full.size() - 12}) {
    auto r = message_id::deserialize(full.substr(0, n));
    ASSERT_FALSE(r) << n;
    EXPECT_EQ(r.error(), client_errc::invalid_argument);
  }
}

}  // namespace
}  // namespace magnetar::st
