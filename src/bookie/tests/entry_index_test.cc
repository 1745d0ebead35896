#include "bookie/entry_index.h"

#include "bookie/errc.h"
#include "io/temp_directory.h"

#include <gtest/gtest.h>

namespace magnetar::bookie {
namespace {

namespace layout = index_layout;

class entry_index_test : public ::testing::Test {
 protected:
  entry_index& index() { return *_index; }
  void reopen() {
    _index.reset();
    _index = entry_index::open(_path).value();
  }
  void put(std::int64_t ledger, std::int64_t entry, entry_location at) {
    entry_index::batch batch;
    batch.put_location(ledger_id(ledger), entry_id(entry), at);
    ASSERT_TRUE(index().write(batch));
  }
  static entry_location at(std::uint64_t log, std::uint64_t offset) {
    return {.log = entry_log_id(log), .offset = offset, .length = 10};
  }

  io::temp_directory _dir{"entry-index-test"};
  std::string _path = _dir / "index";
  std::unique_ptr<entry_index> _index = entry_index::open(_path).value();
};

TEST_F(entry_index_test, a_new_database_says_it_was_created_and_a_reopened_one_does_not) {
  EXPECT_TRUE(index().created());
  reopen();
  EXPECT_FALSE(index().created());
}

TEST_F(entry_index_test, location_reads_back_what_was_written) {
  put(7, 3, {.log = entry_log_id(2), .offset = 4096, .length = 1234});
  const auto found = index().location(ledger_id(7), entry_id(3)).value();
  ASSERT_TRUE(found.has_value());
  EXPECT_EQ(*found, (entry_location{.log = entry_log_id(2), .offset = 4096, .length = 1234}));
}

TEST_F(entry_index_test, location_of_an_entry_never_written_is_empty) {
  put(7, 3, at(1, 32));
  EXPECT_FALSE(index().location(ledger_id(7), entry_id(4)).value().has_value());
  EXPECT_FALSE(index().location(ledger_id(8), entry_id(3)).value().has_value());
}

TEST_F(entry_index_test, keys_sort_by_ledger_then_entry_as_numbers) {
  EXPECT_LT(layout::location_key(ledger_id(1), entry_id(255)), layout::location_key(ledger_id(1), entry_id(256)));
  EXPECT_LT(layout::location_key(ledger_id(1), entry_id(std::int64_t{1} << 40)),
            layout::location_key(ledger_id(2), entry_id(0)));
  EXPECT_LT(layout::location_key(ledger_id(255), entry_id(0)), layout::location_key(ledger_id(256), entry_id(0)));
  EXPECT_LT(layout::ledger_begin(ledger_id(5)), layout::location_key(ledger_id(5), entry_id(0)));
  EXPECT_LT(layout::location_key(ledger_id(5), entry_id(INT64_MAX)), layout::ledger_end(ledger_id(5)));
}

TEST_F(entry_index_test, last_entry_is_the_ledgers_highest_not_a_neighbours) {
  put(1, 0, at(1, 32));
  put(1, 256, at(1, 64));
  put(1, 70000, at(1, 96));
  put(2, 5, at(1, 128));
  put(0, 9, at(1, 160));
  EXPECT_EQ(index().last_entry(ledger_id(1)).value(), std::optional(entry_id(70000)));
  EXPECT_EQ(index().last_entry(ledger_id(2)).value(), std::optional(entry_id(5)));
  EXPECT_EQ(index().last_entry(ledger_id(0)).value(), std::optional(entry_id(9)));
  EXPECT_FALSE(index().last_entry(ledger_id(3)).value().has_value());
}

TEST_F(entry_index_test, delete_ledger_removes_its_locations_keeps_its_tombstone_and_spares_others) {
  put(1, 0, at(1, 32));
  put(1, 1, at(1, 64));
  put(2, 0, at(1, 96));
  entry_index::batch batch;
  batch.delete_ledger(ledger_id(1), {.fenced = true, .deleted = true, .last_add_confirmed = entry_id(1)});
  ASSERT_TRUE(index().write(batch));
  EXPECT_FALSE(index().location(ledger_id(1), entry_id(0)).value().has_value());
  EXPECT_FALSE(index().last_entry(ledger_id(1)).value().has_value());
  EXPECT_TRUE(index().location(ledger_id(2), entry_id(0)).value().has_value());
  const auto states = index().ledger_states().value();
  ASSERT_EQ(states.size(), 1u);
  EXPECT_EQ(states[0].first, ledger_id(1));
  EXPECT_TRUE(states[0].second.deleted);
}

TEST_F(entry_index_test, ledger_states_read_back_in_ledger_order) {
  entry_index::batch batch;
  batch.put_state(ledger_id(300), {.fenced = true, .last_add_confirmed = entry_id(41)});
  batch.put_state(ledger_id(2), {.last_add_confirmed = entry_id(-1)});
  ASSERT_TRUE(index().write(batch));
  const auto states = index().ledger_states().value();
  ASSERT_EQ(states.size(), 2u);
  EXPECT_EQ(states[0].first, ledger_id(2));
  EXPECT_EQ(states[0].second, (stored_ledger_state{.last_add_confirmed = entry_id(-1)}));
  EXPECT_EQ(states[1].first, ledger_id(300));
  EXPECT_EQ(states[1].second, (stored_ledger_state{.fenced = true, .last_add_confirmed = entry_id(41)}));
}

TEST_F(entry_index_test, log_records_keep_committed_ends_and_removals) {
  entry_index::batch batch;
  batch.put_log_end(entry_log_id(1), 4096);
  batch.put_log_end(entry_log_id(2), 64);
  batch.mark_log_removed(entry_log_id(1));
  ASSERT_TRUE(index().write(batch));
  const auto logs = index().logs().value();
  ASSERT_EQ(logs.size(), 2u);
  EXPECT_TRUE(logs.at(entry_log_id(1)).removed);
  EXPECT_FALSE(logs.at(entry_log_id(2)).removed);
  EXPECT_EQ(logs.at(entry_log_id(2)).committed_end, 64u);
}

TEST_F(entry_index_test, everything_written_survives_a_reopen) {
  put(4, 2, at(3, 32));
  entry_index::batch batch;
  batch.put_state(ledger_id(4), {.fenced = true, .last_add_confirmed = entry_id(2)});
  batch.put_log_end(entry_log_id(3), 100);
  ASSERT_TRUE(index().write(batch));
  reopen();
  EXPECT_EQ(index().location(ledger_id(4), entry_id(2)).value(), std::optional(at(3, 32)));
  EXPECT_EQ(index().ledger_states().value().size(), 1u);
  EXPECT_EQ(index().logs().value().at(entry_log_id(3)).committed_end, 100u);
}

TEST_F(entry_index_test, a_malformed_state_value_is_corrupt_record) {
  EXPECT_EQ(layout::decode_state(ledger_id(1), "xx").error(), errc::corrupt_record);
  EXPECT_EQ(layout::decode_location(ledger_id(1), entry_id(1), "short").error(), errc::corrupt_record);
}

}  // namespace
}  // namespace magnetar::bookie
