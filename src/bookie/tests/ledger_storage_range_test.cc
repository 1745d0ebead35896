// Range reads (read_range): entries in the write caches and in the entry logs, read a
// run at a time, in order, ending before the first entry that cannot be read.
#include "bookie/tests/ledger_storage_test_fixture.h"

#include "bookie/entry_log_format.h"

#include <filesystem>

namespace magnetar::bookie {
namespace {

namespace format = entry_log_format;
using ledger_storage_range_test = testing::ledger_storage_test;

std::error_code code(errc e) { return make_error_code(e); }

class range_reads : public ledger_storage_range_test {
 protected:
  // The payloads read from first..last, or the error's message as the only element.
  std::vector<std::string> read_range(std::int64_t ledger, std::int64_t first, std::int64_t last) {
    auto got = storage().read_range(ledger_id(ledger), entry_id(first), entry_id(last));
    if (!got) return {got.error().message()};
    std::vector<std::string> texts;
    for (const auto& payload : got.value()) texts.push_back(testing::text_of(payload));
    return texts;
  }
  std::vector<std::string> expected_range(std::int64_t ledger, std::int64_t first, std::int64_t last,
                                          std::size_t size = 0) {
    std::vector<std::string> texts;
    for (auto e = first; e <= last; ++e) texts.push_back(expected(ledger, e, size));
    return texts;
  }
};

TEST_F(range_reads, flushed_entries_read_back_in_order_after_a_reopen) {
  add_range(1, 0, 50, 100);
  flush();
  reopen();
  EXPECT_EQ(read_range(1, 0, 49), expected_range(1, 0, 49, 100));
}

TEST_F(range_reads, a_range_reads_flushed_entries_then_the_ones_still_in_the_write_cache) {
  add_range(1, 0, 10, 100);
  flush();
  add_range(1, 10, 10, 100);
  EXPECT_EQ(read_range(1, 0, 19), expected_range(1, 0, 19, 100));
}

TEST_F(range_reads, a_ledgers_entries_interleaved_with_anothers_read_back_as_its_own) {
  // A flush after each pair: ledger 1's records are not back to back in the log.
  for (int e = 0; e < 30; ++e) {
    add(1, e, 64);
    add(2, e, 64);
    flush();
  }
  EXPECT_EQ(read_range(1, 5, 29), expected_range(1, 5, 29, 64));
  EXPECT_EQ(read_range(2, 0, 9), expected_range(2, 0, 9, 64));
}

TEST_F(range_reads, a_range_spread_over_several_flushes_and_entry_logs_reads_whole) {
  // 1 MiB logs: 40 entries of 100 KiB roll over several of them.
  for (int e = 0; e < 40; e += 5) {
    add_range(1, e, 5, 100 << 10);
    flush();
  }
  ASSERT_GT(logs().size(), 2u);
  EXPECT_EQ(read_range(1, 0, 39), expected_range(1, 0, 39, 100 << 10));
}

TEST_F(range_reads, a_range_longer_than_one_index_scan_comes_back_whole) {
  add_range(1, 0, 3000, 10);
  flush();
  EXPECT_EQ(read_range(1, 0, 2999), expected_range(1, 0, 2999, 10));
}

TEST_F(range_reads, a_range_larger_than_one_read_comes_back_whole) {
  // Several preads' worth (256 KiB each) in one log.
  _max_log_bytes = 64 << 20;
  _cache_bytes = 32 << 20;
  reopen();
  add_range(1, 0, 100, 64 << 10);
  flush();
  EXPECT_EQ(read_range(1, 0, 99), expected_range(1, 0, 99, 64 << 10));
}

TEST_F(range_reads, a_range_ends_before_the_first_entry_never_stored) {
  add_range(1, 0, 5);
  add_range(1, 6, 5);
  flush();
  EXPECT_EQ(read_range(1, 0, 10), expected_range(1, 0, 4));
}

TEST_F(range_reads, a_range_from_an_entry_never_stored_is_entry_not_found) {
  add_range(1, 0, 5);
  flush();
  const auto got = storage().read_range(ledger_id(1), entry_id(7), entry_id(9));
  ASSERT_FALSE(got);
  EXPECT_EQ(got.error().code(), code(errc::entry_not_found));
}

TEST_F(range_reads, a_range_of_a_deleted_ledger_is_ledger_deleted) {
  add_range(1, 0, 5);
  flush();
  ASSERT_TRUE(storage().delete_ledger(ledger_id(1)));
  const auto got = storage().read_range(ledger_id(1), entry_id(0), entry_id(4));
  ASSERT_FALSE(got);
  EXPECT_EQ(got.error().code(), code(errc::ledger_deleted));
}

TEST_F(range_reads, a_corrupt_record_ends_the_range_before_it_and_a_read_from_it_names_the_damage) {
  constexpr std::size_t size = 200;
  add_range(1, 0, 10, size);
  flush();
  const auto log = in_storage(logs().at(0));
  // Entry 6's last payload byte: records lie back to back after the file header.
  const auto record = format::record_header_size + size;
  testing::flip_byte(log, format::file_header_size + 7 * record - 1);
  EXPECT_EQ(read_range(1, 0, 9), expected_range(1, 0, 5, size));
  const auto got = storage().read_range(ledger_id(1), entry_id(6), entry_id(9));
  ASSERT_FALSE(got);
  EXPECT_EQ(got.error().code(), code(errc::corrupt_record));
  EXPECT_NE(got.error().detail().find("entry 6"), std::string::npos) << got.error();
}

TEST_F(range_reads, an_empty_range_reads_nothing) {
  add_range(1, 0, 3);
  const auto got = storage().read_range(ledger_id(1), entry_id(2), entry_id(1));
  ASSERT_TRUE(got) << got.error();
  EXPECT_TRUE(got.value().empty());
}

}  // namespace
}  // namespace magnetar::bookie
