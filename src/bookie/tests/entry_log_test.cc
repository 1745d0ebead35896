#include "bookie/entry_log.h"

#include "bookie/entry_log_format.h"
#include "bookie/errc.h"
#include "bookie/tests/ledger_storage_test_util.h"
#include "io/faulty_file_system.h"
#include "io/temp_directory.h"

#include <gtest/gtest.h>

#include <filesystem>

namespace magnetar::bookie {
namespace {

namespace format = entry_log_format;
using testing::payload_for;
using testing::text_of;

std::span<const std::byte> bytes_of(const std::string& s) { return std::as_bytes(std::span(s)); }

class entry_log_test : public ::testing::Test {
 protected:
  // Reopens the logs as the storage would, with what its index recorded.
  void reopen() {
    _logs.reset();
    _logs = entry_log::open(options(), _indexed).value();
  }
  entry_log_options options() { return {.directory = _dir.path(), .fs = &_fs, .max_log_bytes = _max_log_bytes}; }
  // Appends and syncs one entry, and records the commit as the index would.
  entry_location add(std::int64_t ledger, std::int64_t entry, std::size_t size = 100) {
    const auto payload = payload_for(ledger_id(ledger), entry_id(entry), size);
    const auto at = _logs->append(ledger_id(ledger), entry_id(entry), bytes_of(payload)).value();
    EXPECT_TRUE(_logs->sync());
    commit();
    return at;
  }
  void commit() {
    if (const auto end = _logs->committed_end()) _indexed[end->first] = {.committed_end = end->second};
  }
  std::string read(const entry_location& at, std::int64_t ledger, std::int64_t entry) {
    return text_of(_logs->find(at.log)->read(at, ledger_id(ledger), entry_id(entry)).value());
  }
  std::uint64_t file_size(entry_log_id id) { return std::filesystem::file_size(_logs->path_of(id)); }

  io::temp_directory _dir{"entry-log-test"};
  io::faulty_file_system _fs;
  std::uint64_t _max_log_bytes = 1 << 20;
  std::map<entry_log_id, indexed_log> _indexed;
  std::unique_ptr<entry_log> _logs = entry_log::open(options(), _indexed).value();
};

TEST_F(entry_log_test, a_synced_record_reads_back) {
  const auto at = add(3, 7);
  EXPECT_EQ(at.log, entry_log_id(1));
  EXPECT_EQ(at.offset, format::file_header_size);
  EXPECT_EQ(read(at, 3, 7), payload_for(ledger_id(3), entry_id(7), 100));
}

TEST_F(entry_log_test, no_log_file_exists_before_the_first_append) {
  EXPECT_TRUE(testing::log_files(_dir.path()).empty());
  EXPECT_FALSE(_logs->current().has_value());
}

TEST_F(entry_log_test, a_flipped_payload_byte_reads_as_corrupt_record) {
  const auto at = add(3, 7);
  testing::flip_byte(_logs->path_of(at.log), at.offset + format::record_header_size + 10);
  const auto got = _logs->find(at.log)->read(at, ledger_id(3), entry_id(7));
  ASSERT_FALSE(got);
  EXPECT_EQ(got.error(), errc::corrupt_record);
  EXPECT_NE(got.error().detail().find("checksum"), std::string::npos) << got.error();
}

TEST_F(entry_log_test, a_flipped_length_byte_reads_as_corrupt_record) {
  const auto at = add(3, 7);
  testing::flip_byte(_logs->path_of(at.log), at.offset + 5);
  const auto got = _logs->find(at.log)->read(at, ledger_id(3), entry_id(7));
  ASSERT_FALSE(got);
  EXPECT_EQ(got.error(), errc::corrupt_record);
}

TEST_F(entry_log_test, reading_a_location_for_other_ids_is_corrupt_record) {
  const auto at = add(3, 7);
  const auto got = _logs->find(at.log)->read(at, ledger_id(3), entry_id(8));
  ASSERT_FALSE(got);
  EXPECT_EQ(got.error(), errc::corrupt_record);
}

TEST_F(entry_log_test, synced_records_count_in_their_logs_metadata) {
  add(1, 0, 100);
  add(1, 1, 100);
  add(2, 0, 50);
  reopen();  // the closed log is sealed and no longer current
  const auto sealed = _logs->sealed_logs();
  ASSERT_EQ(sealed.size(), 1u);
  EXPECT_EQ(sealed[0].metadata.ledgers().at(ledger_id(1)), 2 * (format::record_header_size + 100));
  EXPECT_EQ(sealed[0].metadata.ledgers().at(ledger_id(2)), format::record_header_size + 50);
}

TEST_F(entry_log_test, the_current_log_is_not_offered_for_garbage_collection) {
  add(1, 0);
  EXPECT_TRUE(_logs->sealed_logs().empty());
}

TEST_F(entry_log_test, rollback_cuts_what_was_appended_since_the_last_sync) {
  add(1, 0);
  const auto end = _logs->committed_end()->second;
  ASSERT_TRUE(_logs->append(ledger_id(1), entry_id(1), bytes_of(std::string(2 << 20, 'x'))));
  _logs->rollback();
  EXPECT_EQ(file_size(entry_log_id(1)), end);
  const auto at = add(1, 1);
  EXPECT_EQ(at.offset, end);
}

TEST_F(entry_log_test, a_new_log_starts_at_the_first_append_after_the_limit_is_passed) {
  _max_log_bytes = 1000;
  reopen();
  std::vector<entry_log_id> logs;
  for (int i = 0; i < 6; ++i) logs.push_back(add(1, i, 300).log);
  // 32 + 3 * 324 > 1000: the fourth record starts log 2.
  EXPECT_EQ(logs, (std::vector<entry_log_id>{entry_log_id(1), entry_log_id(1), entry_log_id(1), entry_log_id(2),
                                             entry_log_id(2), entry_log_id(2)}));
}

TEST_F(entry_log_test, a_log_left_for_a_new_one_is_sealed_with_its_metadata) {
  _max_log_bytes = 100;
  reopen();
  add(4, 0, 200);
  add(5, 0, 10);  // starts log 2
  const auto footer = _logs->find(entry_log_id(1))->read_footer().value();
  ASSERT_TRUE(footer.has_value());
  EXPECT_EQ(footer->data_end, format::file_header_size + format::record_header_size + 200);
  EXPECT_EQ(footer->metadata.ledgers().size(), 1u);
  EXPECT_EQ(footer->metadata.ledgers().at(ledger_id(4)), format::record_header_size + 200);
}

TEST_F(entry_log_test, reopen_scans_a_log_without_footer_and_cuts_its_uncommitted_tail) {
  add(1, 0);
  const auto committed = _logs->committed_end()->second;
  // Synced, but the index never learned of it: a crash between log and index.
  const auto unindexed = payload_for(ledger_id(1), entry_id(1));
  ASSERT_TRUE(_logs->append(ledger_id(1), entry_id(1), bytes_of(unindexed)));
  ASSERT_TRUE(_logs->sync());
  _fs.crash();  // the old objects die, so nothing gets sealed
  reopen();
  EXPECT_EQ(_logs->recovery().bytes_cut, format::record_header_size + unindexed.size());
  const auto footer = _logs->find(entry_log_id(1))->read_footer().value();
  ASSERT_TRUE(footer.has_value()) << "a scanned log is sealed for the next start";
  EXPECT_EQ(footer->data_end, committed);
  EXPECT_EQ(footer->metadata.total_bytes(), format::record_header_size + 100);
}

TEST_F(entry_log_test, reopen_cuts_a_torn_record_at_the_tail) {
  add(1, 0);
  const auto committed = _logs->committed_end()->second;
  // Large enough to reach the file unsynced; the power cut keeps a strict prefix.
  ASSERT_TRUE(_logs->append(ledger_id(1), entry_id(1), bytes_of(std::string(3 << 20, 't'))));
  _fs.crash(io::crash_mode::torn_last_write);
  reopen();
  const auto file = _logs->find(entry_log_id(1));
  const auto scanned = file->scan(UINT64_MAX, [](const scanned_record& r, std::span<const std::byte>) {
    EXPECT_EQ(r.entry, entry_id(0));
    return result<void>(success());
  });
  ASSERT_TRUE(scanned);
  EXPECT_EQ(scanned.value().valid_end, committed);
  EXPECT_TRUE(scanned.value().problem.empty()) << scanned.value().problem;
}

TEST_F(entry_log_test, reopen_removes_a_log_the_index_never_committed) {
  add(1, 0);
  _max_log_bytes = 1;
  reopen();
  ASSERT_TRUE(_logs->append(ledger_id(2), entry_id(0), bytes_of(std::string("x"))));  // creates log 2
  ASSERT_TRUE(_logs->sync());
  _fs.crash();
  reopen();  // log 2 never made it into _indexed
  EXPECT_EQ(_logs->recovery().unindexed, std::vector<entry_log_id>{entry_log_id(2)});
  EXPECT_EQ(testing::log_files(_dir.path()), std::vector<std::string>{"0000000000000001.log"});
}

TEST_F(entry_log_test, new_logs_never_reuse_the_id_of_a_removed_one) {
  add(1, 0);
  _max_log_bytes = 1;
  reopen();
  add(2, 0);  // log 2; log 1 sealed
  ASSERT_TRUE(_logs->remove(entry_log_id(1)));
  _indexed[entry_log_id(1)] = {.removed = true};
  reopen();
  EXPECT_EQ(add(3, 0).log, entry_log_id(3));
}

TEST_F(entry_log_test, a_log_corrupt_before_its_committed_end_is_kept_whole_as_damaged) {
  const auto first = add(1, 0);
  const auto second = add(1, 1);
  const auto size = file_size(first.log);
  _fs.crash();  // no footer: the next open must scan
  testing::flip_byte(_logs->path_of(first.log), first.offset + format::record_header_size + 3);
  reopen();
  EXPECT_EQ(_logs->recovery().damaged, std::vector<entry_log_id>{entry_log_id(1)});
  EXPECT_TRUE(_logs->sealed_logs().empty()) << "a damaged log is kept out of garbage collection";
  EXPECT_EQ(file_size(first.log), size);
  EXPECT_EQ(read(second, 1, 1), payload_for(ledger_id(1), entry_id(1), 100));
  EXPECT_EQ(_logs->find(first.log)->read(first, ledger_id(1), entry_id(0)).error(), errc::corrupt_record);
}

}  // namespace
}  // namespace magnetar::bookie
