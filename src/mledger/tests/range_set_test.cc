#include "mledger/range_set.h"

#include <gtest/gtest.h>

#include <vector>

namespace magnetar::mledger {
namespace {

position pos(std::int64_t ledger, std::int64_t entry) { return {ledger_id(ledger), entry_id(entry)}; }
position_range range(std::int64_t ledger, std::int64_t first, std::int64_t last) {
  return {pos(ledger, first), pos(ledger, last)};
}
std::vector<position_range> ranges_of(const range_set& set) { return {set.begin(), set.end()}; }

std::vector<std::byte> bytes(std::initializer_list<int> values) {
  std::vector<std::byte> out;
  for (int v : values) out.push_back(static_cast<std::byte>(v));
  return out;
}

TEST(range_set, an_empty_set_contains_nothing) {
  range_set set;
  EXPECT_TRUE(set.empty());
  EXPECT_FALSE(set.contains(pos(0, 0)));
  EXPECT_EQ(set.first_range(), std::nullopt);
  EXPECT_EQ(set.size(), 0u);
}

TEST(range_set, an_added_position_is_contained_and_its_neighbours_are_not) {
  range_set set;
  EXPECT_TRUE(set.add(pos(3, 7)));
  EXPECT_TRUE(set.contains(pos(3, 7)));
  EXPECT_FALSE(set.contains(pos(3, 6)));
  EXPECT_FALSE(set.contains(pos(3, 8)));
  EXPECT_FALSE(set.contains(pos(4, 7)));
}

TEST(range_set, adding_a_position_twice_reports_it_was_there) {
  range_set set;
  set.add(pos(3, 7));
  EXPECT_FALSE(set.add(pos(3, 7)));
  EXPECT_EQ(set.size(), 1u);
}

TEST(range_set, consecutive_acks_collapse_into_one_range) {
  range_set set;
  for (int entry = 0; entry < 100; ++entry) set.add(pos(1, entry));
  EXPECT_EQ(ranges_of(set), (std::vector{range(1, 0, 99)}));
}

TEST(range_set, acks_in_descending_order_collapse_too) {
  range_set set;
  for (int entry = 99; entry >= 0; --entry) set.add(pos(1, entry));
  EXPECT_EQ(ranges_of(set), (std::vector{range(1, 0, 99)}));
}

TEST(range_set, an_ack_filling_a_hole_joins_the_ranges_on_both_sides) {
  range_set set;
  set.add_range(pos(1, 0), pos(1, 4));
  set.add_range(pos(1, 6), pos(1, 9));
  ASSERT_EQ(set.range_count(), 2u);
  set.add(pos(1, 5));
  EXPECT_EQ(ranges_of(set), (std::vector{range(1, 0, 9)}));
}

TEST(range_set, positions_of_different_ledgers_never_share_a_range) {
  range_set set;
  set.add(pos(5, 9));
  set.add(pos(6, 0));
  set.add(pos(7, 0));
  EXPECT_EQ(ranges_of(set), (std::vector{range(5, 9, 9), range(6, 0, 0), range(7, 0, 0)}));
}

TEST(range_set, add_range_merges_overlapping_and_adjacent_ranges) {
  range_set set;
  set.add_range(pos(2, 10), pos(2, 20));
  set.add_range(pos(2, 15), pos(2, 30));
  set.add_range(pos(2, 31), pos(2, 40));
  set.add_range(pos(2, 0), pos(2, 9));
  EXPECT_EQ(ranges_of(set), (std::vector{range(2, 0, 40)}));
}

TEST(range_set, add_range_swallows_every_range_it_covers) {
  range_set set;
  for (int entry = 0; entry < 20; entry += 2) set.add(pos(2, entry));
  ASSERT_EQ(set.range_count(), 10u);
  set.add_range(pos(2, 1), pos(2, 17));
  EXPECT_EQ(ranges_of(set), (std::vector{range(2, 0, 18)}));
}

TEST(range_set, add_range_returns_how_many_positions_were_new) {
  range_set set;
  set.add_range(pos(2, 5), pos(2, 9));
  set.add_range(pos(2, 20), pos(2, 24));
  EXPECT_EQ(set.add_range(pos(2, 0), pos(2, 30)), 31u - 10u);
  EXPECT_EQ(set.add_range(pos(2, 3), pos(2, 8)), 0u);
  EXPECT_EQ(set.size(), 31u);
}

TEST(range_set, a_million_consecutive_acks_take_one_range) {
  range_set set;
  for (int entry = 0; entry < 1'000'000; ++entry) set.add(pos(9, entry));
  EXPECT_EQ(set.range_count(), 1u);
  EXPECT_EQ(set.size(), 1'000'000u);
  EXPECT_LT(set.memory_bytes(), 200u);
}

TEST(range_set, remove_up_to_drops_ranges_at_or_below_the_position) {
  range_set set;
  set.add_range(pos(1, 0), pos(1, 3));
  set.add_range(pos(2, 5), pos(2, 6));
  set.add_range(pos(2, 10), pos(2, 12));
  set.remove_up_to(pos(2, 6));
  EXPECT_EQ(ranges_of(set), (std::vector{range(2, 10, 12)}));
  EXPECT_EQ(set.size(), 3u);
}

TEST(range_set, remove_up_to_trims_the_range_it_falls_in) {
  range_set set;
  set.add_range(pos(2, 0), pos(2, 9));
  set.remove_up_to(pos(2, 4));
  EXPECT_EQ(ranges_of(set), (std::vector{range(2, 5, 9)}));
  EXPECT_EQ(set.size(), 5u);
}

TEST(range_set, remove_up_to_a_position_in_a_hole_keeps_everything_above) {
  range_set set;
  set.add_range(pos(2, 0), pos(2, 3));
  set.add_range(pos(2, 8), pos(2, 9));
  set.remove_up_to(pos(2, 5));
  EXPECT_EQ(ranges_of(set), (std::vector{range(2, 8, 9)}));
}

TEST(range_set, remove_up_to_the_start_of_a_ledger_keeps_that_ledger) {
  range_set set;
  set.add_range(pos(1, 0), pos(1, 3));
  set.add_range(pos(2, 0), pos(2, 3));
  set.remove_up_to(pos(2, -1));
  EXPECT_EQ(ranges_of(set), (std::vector{range(2, 0, 3)}));
}

TEST(range_set, remove_up_to_latest_empties_the_set) {
  range_set set;
  set.add_range(pos(1, 0), pos(1, 3));
  set.add(pos(8, 1));
  set.remove_up_to(position::latest());
  EXPECT_TRUE(set.empty());
  EXPECT_EQ(set.size(), 0u);
}

TEST(range_set, first_and_last_range_are_the_lowest_and_highest) {
  range_set set;
  set.add_range(pos(4, 2), pos(4, 3));
  set.add_range(pos(1, 7), pos(1, 8));
  set.add(pos(2, 0));
  EXPECT_EQ(set.first_range(), range(1, 7, 8));
  EXPECT_EQ(set.last_range(), range(4, 2, 3));
}

TEST(range_set, iteration_visits_ranges_in_position_order) {
  range_set set;
  set.add(pos(3, 1));
  set.add(pos(1, 5));
  set.add(pos(1, 1));
  set.add(pos(2, 9));
  EXPECT_EQ(ranges_of(set), (std::vector{range(1, 1, 1), range(1, 5, 5), range(2, 9, 9), range(3, 1, 1)}));
}

TEST(range_set, range_containing_returns_the_merged_range_around_a_position) {
  range_set set;
  set.add_range(pos(1, 10), pos(1, 20));
  EXPECT_EQ(set.range_containing(pos(1, 15)), range(1, 10, 20));
  EXPECT_EQ(set.range_containing(pos(1, 21)), std::nullopt);
  EXPECT_EQ(set.range_containing(pos(2, 15)), std::nullopt);
}

TEST(range_set, size_in_ledger_counts_the_positions_of_one_ledger) {
  range_set set;
  set.add_range(pos(1, 0), pos(1, 9));
  set.add_range(pos(2, 0), pos(2, 1));
  set.add_range(pos(2, 5), pos(2, 7));
  set.add(pos(3, 0));
  EXPECT_EQ(set.size_in_ledger(ledger_id(2)), 5u);
  EXPECT_EQ(set.size_in_ledger(ledger_id(4)), 0u);
  EXPECT_EQ(set.size(), 16u);
}

TEST(range_set, clear_forgets_everything) {
  range_set set;
  set.add_range(pos(1, 0), pos(1, 9));
  set.clear();
  EXPECT_TRUE(set.empty());
  EXPECT_EQ(set.size(), 0u);
}

TEST(range_set, open_lower_is_upstreams_exclusive_endpoint) {
  EXPECT_EQ(range(5, 4, 9).open_lower(), pos(5, 3));
  EXPECT_EQ(range(5, 0, 0).open_lower(), pos(5, -1));
}

TEST(range_set, formats_as_a_list_of_closed_ranges) {
  range_set set;
  set.add_range(pos(5, 0), pos(5, 3));
  set.add(pos(7, 0));
  EXPECT_EQ(fmt::format("{}", set), "{[5:0..5:3], [7:0..7:0]}");
}

TEST(range_set, a_range_across_ledgers_is_refused) {
  range_set set;
  EXPECT_DEATH(set.add_range(pos(1, 5), pos(2, 0)), "one ledger's entries");
}

TEST(range_set, negative_positions_cannot_be_acknowledged) {
  range_set set;
  EXPECT_DEATH(set.add(position::earliest()), "cannot be acknowledged");
}

// Persistence.

TEST(range_set_serialization, round_trip_keeps_every_range) {
  range_set set;
  set.add_range(pos(0, 0), pos(0, 0));
  set.add_range(pos(3, 5), pos(3, 1000));
  set.add_range(pos(3, 1002), pos(3, 1002));
  set.add_range(pos(1'000'000'000'000, 1), pos(1'000'000'000'000, 1'000'000'000'000));
  const auto written = set.serialize();
  auto read = range_set::deserialize(written.bytes);
  ASSERT_TRUE(read) << read.error();
  EXPECT_EQ(read.value(), set);
  EXPECT_EQ(read.value().size(), set.size());
  EXPECT_EQ(written.ranges_written, 4u);
  EXPECT_EQ(written.ranges_dropped, 0u);
}

TEST(range_set_serialization, an_empty_set_round_trips) {
  const auto written = range_set().serialize();
  auto read = range_set::deserialize(written.bytes);
  ASSERT_TRUE(read) << read.error();
  EXPECT_TRUE(read.value().empty());
}

TEST(range_set_serialization, ranges_near_each_other_take_about_two_bytes_each) {
  range_set set;
  // Every other entry acked: 5000 ranges, the worst shape for a range list.
  for (int entry = 0; entry < 10'000; entry += 2) set.add(pos(123'456, entry));
  const auto written = set.serialize();
  EXPECT_EQ(written.ranges_written, 5000u);
  EXPECT_LE(written.bytes.size(), 2u * 5000u + 8u);
}

TEST(range_set_serialization, writes_at_most_the_bound_keeping_the_lowest_ranges) {
  range_set set;
  for (int entry = 0; entry < 20; entry += 2) set.add(pos(1, entry));
  for (int entry = 0; entry < 20; entry += 2) set.add(pos(2, entry));
  const auto written = set.serialize(12);
  EXPECT_EQ(written.ranges_written, 12u);
  EXPECT_EQ(written.ranges_dropped, 8u);
  auto read = range_set::deserialize(written.bytes);
  ASSERT_TRUE(read) << read.error();
  EXPECT_EQ(read.value().range_count(), 12u);
  EXPECT_EQ(read.value().last_range(), range(2, 2, 2));
  EXPECT_TRUE(read.value().contains(pos(1, 18)));
  EXPECT_FALSE(read.value().contains(pos(2, 4)));
}

TEST(range_set_serialization, the_default_bound_is_pulsars_ten_thousand_ranges) {
  range_set set;
  for (int entry = 0; entry < 2 * 10'001; entry += 2) set.add(pos(1, entry));
  const auto written = set.serialize();
  EXPECT_EQ(written.ranges_written, 10'000u);
  EXPECT_EQ(written.ranges_dropped, 1u);
}

TEST(range_set_serialization, refuses_no_bytes) {
  auto read = range_set::deserialize({});
  ASSERT_FALSE(read);
  EXPECT_EQ(read.error(), base::errc::corrupt_data);
}

TEST(range_set_serialization, refuses_an_unknown_version) {
  auto read = range_set::deserialize(bytes({2, 0}));
  ASSERT_FALSE(read);
  EXPECT_EQ(read.error(), base::errc::corrupt_data);
  EXPECT_NE(read.error().detail().find("version 2"), std::string::npos);
}

TEST(range_set_serialization, refuses_every_truncation) {
  range_set set;
  set.add_range(pos(300, 5), pos(300, 900));
  set.add_range(pos(301, 0), pos(301, 0));
  const auto written = set.serialize();
  for (std::size_t size = 0; size < written.bytes.size(); ++size) {
    auto read = range_set::deserialize(std::span(written.bytes).first(size));
    EXPECT_FALSE(read) << "accepted the first " << size << " bytes";
  }
}

TEST(range_set_serialization, refuses_trailing_bytes) {
  auto written = range_set().serialize();
  written.bytes.push_back(std::byte{0});
  EXPECT_FALSE(range_set::deserialize(written.bytes));
}

TEST(range_set_serialization, refuses_a_ledger_without_ranges) {
  // version 1, one ledger: id 7, zero ranges.
  EXPECT_FALSE(range_set::deserialize(bytes({1, 1, 7, 0})));
}

TEST(range_set_serialization, refuses_entry_ids_past_the_largest) {
  // version 1, one ledger: id 0, one range: first entry 2^63 - 1 (ten-byte varint), length 0.
  auto read = range_set::deserialize(bytes({1, 1, 0, 1, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x7f, 0}));
  ASSERT_FALSE(read);
  EXPECT_EQ(read.error(), base::errc::corrupt_data);
}

TEST(range_set_serialization, refuses_an_overlong_varint) {
  EXPECT_FALSE(range_set::deserialize(bytes({1, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x02})));
}

}  // namespace
}  // namespace magnetar::mledger
