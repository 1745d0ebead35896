// Garbage collection: removal of dead entry logs and compaction of sparse ones.
#include "bookie/tests/ledger_storage_test_fixture.h"

namespace magnetar::bookie {
namespace {

constexpr std::size_t entry_bytes = 500;  // records of 524 bytes

class ledger_storage_gc_test : public testing::ledger_storage_test {
 protected:
  void SetUp() override {
    _max_log_bytes = 4096;
    reopen();
  }
  // One flush of `count` entries of each ledger.
  void flush_ledgers(std::initializer_list<std::pair<std::int64_t, std::int64_t>> ledgers_and_counts) {
    for (const auto& [ledger, count] : ledgers_and_counts) add_range(ledger, 0, count, entry_bytes);
    flush();
  }
  void expect_readable(std::int64_t ledger, std::int64_t count) {
    for (std::int64_t e = 0; e < count; ++e) EXPECT_EQ(read(ledger, e), expected(ledger, e, entry_bytes));
  }
  gc_stats collect() {
    auto stats = storage().collect_garbage();
    EXPECT_TRUE(stats) << stats.error();
    return stats ? stats.value() : gc_stats{};
  }
};

TEST_F(ledger_storage_gc_test, a_log_whose_ledgers_are_all_deleted_is_removed) {
  flush_ledgers({{1, 10}});  // log 1, past the limit
  flush_ledgers({{2, 10}});  // log 2
  flush_ledgers({{3, 1}});   // log 3, current
  ASSERT_EQ(logs().size(), 3u);
  ASSERT_TRUE(storage().delete_ledger(ledger_id(1)));
  const auto stats = collect();
  EXPECT_EQ(stats.logs_removed, 1u);
  EXPECT_EQ(stats.logs_compacted, 0u);
  EXPECT_GT(stats.bytes_reclaimed, 10 * entry_bytes);
  EXPECT_EQ(logs(), (std::vector<std::string>{"0000000000000002.log", "0000000000000003.log"}));
  expect_readable(2, 10);
  expect_readable(3, 1);
}

TEST_F(ledger_storage_gc_test, a_log_of_deleted_ledgers_is_removed_after_a_reopen_too) {
  flush_ledgers({{1, 10}});
  flush_ledgers({{2, 10}});
  reopen();  // both logs sealed; metadata comes from their footers
  ASSERT_TRUE(storage().delete_ledger(ledger_id(1)));
  EXPECT_EQ(collect().logs_removed, 1u);
  EXPECT_EQ(logs(), std::vector<std::string>{"0000000000000002.log"});
  expect_readable(2, 10);
}

TEST_F(ledger_storage_gc_test, a_mostly_deleted_log_is_compacted_and_its_live_entries_stay_readable) {
  flush_ledgers({{1, 18}, {2, 2}});  // log 1: ledger 2 is a tenth of it
  flush_ledgers({{3, 1}});           // log 2, current
  ASSERT_TRUE(storage().delete_ledger(ledger_id(1)));
  const auto stats = collect();
  EXPECT_EQ(stats.logs_compacted, 1u);
  EXPECT_EQ(stats.logs_removed, 0u);
  EXPECT_EQ(stats.bytes_copied, 2 * (entry_bytes + 24));
  EXPECT_EQ(logs(), std::vector<std::string>{"0000000000000002.log"});
  expect_readable(2, 2);
  expect_readable(3, 1);
  reopen();
  expect_readable(2, 2);
  expect_readable(3, 1);
  EXPECT_EQ(storage().state(ledger_id(2)).value().last_entry, entry_id(1));
}

TEST_F(ledger_storage_gc_test, compacted_entries_read_back_as_a_range_from_their_new_log) {
  flush_ledgers({{1, 18}, {2, 2}});
  flush_ledgers({{3, 1}});
  ASSERT_TRUE(storage().delete_ledger(ledger_id(1)));
  ASSERT_EQ(collect().logs_compacted, 1u);
  const auto range = storage().read_range(ledger_id(2), entry_id(0), entry_id(1));
  ASSERT_TRUE(range) << range.error();
  ASSERT_EQ(range.value().size(), 2u);
  EXPECT_EQ(testing::text_of(range.value()[0]), expected(2, 0, entry_bytes));
  EXPECT_EQ(testing::text_of(range.value()[1]), expected(2, 1, entry_bytes));
}

TEST_F(ledger_storage_gc_test, a_log_with_a_high_live_share_is_left_alone) {
  flush_ledgers({{1, 2}, {2, 18}});
  flush_ledgers({{3, 1}});
  ASSERT_TRUE(storage().delete_ledger(ledger_id(1)));
  const auto stats = collect();
  EXPECT_EQ(stats.logs_removed + stats.logs_compacted, 0u);
  EXPECT_EQ(logs().size(), 2u);
}

TEST_F(ledger_storage_gc_test, the_current_log_is_never_collected) {
  flush_ledgers({{1, 3}});
  ASSERT_TRUE(storage().delete_ledger(ledger_id(1)));
  const auto stats = collect();
  EXPECT_EQ(stats.logs_removed + stats.logs_compacted, 0u);
  EXPECT_EQ(logs(), std::vector<std::string>{"0000000000000001.log"});
}

TEST_F(ledger_storage_gc_test, compaction_leaves_behind_copies_that_a_re_add_superseded) {
  flush_ledgers({{1, 18}, {2, 2}});  // log 1
  flush_ledgers({{3, 1}});           // log 2, current
  flush_ledgers({{2, 2}});           // journal replay: ledger 2's newest copies are in log 2
  ASSERT_TRUE(storage().delete_ledger(ledger_id(1)));
  const auto stats = collect();
  EXPECT_EQ(stats.logs_compacted, 1u);
  EXPECT_EQ(stats.bytes_copied, 0u);
  expect_readable(2, 2);
}

TEST_F(ledger_storage_gc_test, a_second_collection_finds_nothing_more_to_do) {
  flush_ledgers({{1, 10}});
  flush_ledgers({{2, 10}});
  flush_ledgers({{3, 1}});
  ASSERT_TRUE(storage().delete_ledger(ledger_id(1)));
  collect();
  const auto again = collect();
  EXPECT_EQ(again.logs_removed + again.logs_compacted, 0u);
}

TEST_F(ledger_storage_gc_test, a_removed_logs_id_is_not_reused_after_a_reopen) {
  flush_ledgers({{1, 10}});
  flush_ledgers({{2, 10}});
  ASSERT_TRUE(storage().delete_ledger(ledger_id(2)));
  reopen();  // log 2 is no longer current
  EXPECT_EQ(collect().logs_removed, 1u);
  reopen();
  flush_ledgers({{3, 1}});
  EXPECT_EQ(logs(), (std::vector<std::string>{"0000000000000001.log", "0000000000000003.log"}));
  expect_readable(1, 10);
  expect_readable(3, 1);
}

}  // namespace
}  // namespace magnetar::bookie
