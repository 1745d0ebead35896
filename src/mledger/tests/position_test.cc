#include "mledger/position.h"

#include <gtest/gtest.h>

#include <unordered_set>

namespace magnetar::mledger {
namespace {

position pos(std::int64_t ledger, std::int64_t entry) { return {ledger_id(ledger), entry_id(entry)}; }

TEST(position, orders_by_ledger_then_entry) {
  EXPECT_LT(pos(1, 9), pos(1, 10));
  EXPECT_LT(pos(1, 1000), pos(2, 0));
  EXPECT_EQ(pos(3, 4), pos(3, 4));
}

TEST(position, earliest_sorts_before_every_position_and_latest_after) {
  EXPECT_LT(position::earliest(), pos(0, 0));
  EXPECT_LT(position::earliest(), pos(0, -1));
  EXPECT_GT(position::latest(), pos(1'000'000, 1'000'000));
  EXPECT_EQ(position::earliest(), pos(-1, -1));
}

TEST(position, default_constructed_is_earliest) { EXPECT_EQ(position(), position::earliest()); }

TEST(position, next_in_ledger_stays_in_the_ledger) { EXPECT_EQ(pos(5, 9).next_in_ledger(), pos(5, 10)); }

TEST(position, formats_as_ledger_colon_entry) {
  EXPECT_EQ(fmt::format("{}", pos(12, 34)), "12:34");
  EXPECT_EQ(fmt::format("{}", position::earliest()), "-1:-1");
}

TEST(position, hashes_distinct_positions_apart) {
  std::unordered_set<position> set;
  for (int ledger = 0; ledger < 10; ++ledger) {
    for (int entry = 0; entry < 100; ++entry) set.insert(pos(ledger, entry));
  }
  set.insert(pos(3, 7));
  EXPECT_EQ(set.size(), 1000u);
  EXPECT_NE(std::hash<position>{}(pos(1, 2)), std::hash<position>{}(pos(2, 1)));
}

}  // namespace
}  // namespace magnetar::mledger
