#include "mledger/metadata.h"

#include "mledger/errc.h"

#include <gtest/gtest.h>

namespace magnetar::mledger {
namespace {

TEST(mledger_metadata, managed_ledger_info_round_trips_through_json) {
  managed_ledger_info info;
  info.ledgers = {{ledger_id(3), 10, 1000, 17}, {ledger_id(9), 0, 0, 18}};
  info.properties["owner"] = "broker-1";
  EXPECT_EQ(managed_ledger_info_from_json(to_json(info)).value(), info);
}

TEST(mledger_metadata, a_terminated_managed_ledger_keeps_its_last_position_through_json) {
  managed_ledger_info info;
  info.ledgers = {{ledger_id(3), 10, 1000, 17}};
  info.terminated_at = position(ledger_id(3), entry_id(9));
  auto back = managed_ledger_info_from_json(to_json(info)).value();
  EXPECT_EQ(back, info);
  info.terminated_at.reset();
  EXPECT_FALSE(managed_ledger_info_from_json(to_json(info)).value().terminated_at);
}

TEST(mledger_metadata, cursor_info_round_trips_with_its_acked_ranges) {
  cursor_info info;
  info.mark_delete = position(ledger_id(3), entry_id(4));
  info.individually_deleted.add_range(position(ledger_id(3), entry_id(6)), position(ledger_id(3), entry_id(9)));
  info.individually_deleted.add(position(ledger_id(5), entry_id(0)));
  info.properties["k"] = "v";
  info.batch_ack_sets[position(ledger_id(3), entry_id(5))] = {0b1100, -1};
  EXPECT_EQ(cursor_info_from_json(to_json(info, 100)).value(), info);
}

TEST(mledger_metadata, ranges_beyond_the_bound_are_dropped_and_counted) {
  cursor_info info;
  for (int i = 0; i < 5; ++i) info.individually_deleted.add(position(ledger_id(1), entry_id(2 * i)));
  auto back = cursor_info_from_json(to_json(info, 2)).value();
  EXPECT_EQ(back.individually_deleted.range_count(), 2u);
  EXPECT_EQ(back.ranges_dropped, 3u);
}

TEST(mledger_metadata, malformed_json_is_bad_metadata) {
  EXPECT_EQ(managed_ledger_info_from_json("{").error(), errc::bad_metadata);
  EXPECT_EQ(managed_ledger_info_from_json(R"({"ledgers": [{"id": "x"}]})").error(), errc::bad_metadata);
  EXPECT_EQ(cursor_info_from_json(R"({"mark_delete": [1, 2], "individually_deleted": "zz"})").error(),
            errc::bad_metadata);
}

TEST(mledger_metadata, names_that_are_not_paths_are_refused) {
  EXPECT_TRUE(check_managed_ledger_name("public/default/persistent/t"));
  EXPECT_EQ(check_managed_ledger_name("").error(), errc::invalid_name);
  EXPECT_EQ(check_managed_ledger_name("a//b").error(), errc::invalid_name);
  EXPECT_EQ(check_cursor_name("a/b").error(), errc::invalid_name);
}

}  // namespace
}  // namespace magnetar::mledger
