// Disk faults: corrupt records, crashes during a flush, a full disk, failing syncs.
#include "bookie/tests/ledger_storage_test_fixture.h"

#include "bookie/entry_log_format.h"

#include <filesystem>

namespace magnetar::bookie {
namespace {

namespace format = entry_log_format;
using ledger_storage_fault_test = testing::ledger_storage_test;

std::error_code code(errc e) { return make_error_code(e); }

TEST_F(ledger_storage_fault_test, a_flipped_payload_byte_on_disk_reads_as_corrupt_record) {
  add(1, 0, 200);
  add(1, 1, 200);
  flush();
  const auto log = in_storage(logs().at(0));
  testing::flip_byte(log, std::filesystem::file_size(log) - 1);  // entry 1's last byte
  EXPECT_EQ(read(1, 0), expected(1, 0, 200));
  const auto got = storage().read_entry(ledger_id(1), entry_id(1));
  ASSERT_FALSE(got);
  EXPECT_EQ(got.error(), errc::corrupt_record);
  EXPECT_NE(got.error().detail().find(log), std::string::npos) << got.error();
}

TEST_F(ledger_storage_fault_test, a_flipped_record_header_byte_on_disk_reads_as_corrupt_record) {
  add(1, 0, 200);
  flush();
  testing::flip_byte(in_storage(logs().at(0)), format::file_header_size + 12);  // inside the ledger id
  EXPECT_EQ(read_error(1, 0), code(errc::corrupt_record));
}

class ledger_storage_crash_test : public testing::ledger_storage_test,
                                  public ::testing::WithParamInterface<io::crash_mode> {
 protected:
  void SetUp() override {
    _fs_in_use = &_crasher;
    reopen();
  }
  // The storage's files go through _crasher: close them before it goes.
  void TearDown() override { _storage.reset(); }
  testing::crash_at_sync_file_system _crasher{_fs, GetParam()};
};

TEST_P(ledger_storage_crash_test, a_crash_during_a_flush_keeps_what_was_flushed_before_and_serves_nothing_corrupt) {
  add_range(1, 0, 10, 100);
  flush();
  add_range(1, 10, 10, 3000);
  add_range(2, 0, 5, 3000);
  _crasher.crash_at_sync(1);
  ASSERT_FALSE(storage().flush());
  ASSERT_TRUE(_crasher.crashed());
  reopen();
  EXPECT_TRUE(storage().recovery().damaged.empty());
  for (int e = 0; e < 10; ++e) EXPECT_EQ(read(1, e), expected(1, e, 100));
  for (int e = 10; e < 20; ++e) EXPECT_EQ(read_error(1, e), code(errc::entry_not_found));
  EXPECT_EQ(read_error(2, 0), code(errc::ledger_not_found));
  EXPECT_EQ(storage().state(ledger_id(1)).value().last_entry, entry_id(9));
}

TEST_P(ledger_storage_crash_test, after_a_crash_during_a_flush_replayed_entries_flush_and_survive_another_restart) {
  add_range(1, 0, 10, 100);
  flush();
  add_range(1, 10, 10, 3000);
  _crasher.crash_at_sync(1);
  ASSERT_FALSE(storage().flush());
  reopen();
  add_range(1, 10, 10, 3000);  // the journal's replay
  flush();
  reopen();
  for (int e = 0; e < 10; ++e) EXPECT_EQ(read(1, e), expected(1, e, 100));
  for (int e = 10; e < 20; ++e) EXPECT_EQ(read(1, e), expected(1, e, 3000));
}

INSTANTIATE_TEST_SUITE_P(crash_modes, ledger_storage_crash_test,
                         ::testing::Values(io::crash_mode::drop_unsynced, io::crash_mode::torn_last_write),
                         [](const auto& info) {
                           return info.param == io::crash_mode::drop_unsynced ? "drop_unsynced" : "torn_last_write";
                         });

TEST_F(ledger_storage_fault_test, a_full_disk_fails_the_flush_with_storage_full_and_reads_still_work) {
  add_range(1, 0, 5, 100);
  flush();
  _fs.set_free_space(200);
  add_range(1, 5, 10, 100);
  const auto flushed = storage().flush();
  ASSERT_FALSE(flushed);
  EXPECT_EQ(flushed.error(), errc::storage_full);
  EXPECT_NE(flushed.error().detail().find("No space left on device"), std::string::npos) << flushed.error();
  for (int e = 0; e < 15; ++e) EXPECT_EQ(read(1, e), expected(1, e, 100));
}

TEST_F(ledger_storage_fault_test, a_flush_succeeds_once_space_returns_and_loses_nothing) {
  add_range(1, 0, 5, 100);
  flush();
  _fs.set_free_space(200);
  add_range(1, 5, 10, 100);
  ASSERT_FALSE(storage().flush());
  add_range(1, 15, 5, 100);  // adds continue into the other cache
  _fs.set_free_space(std::nullopt);
  flush();
  reopen();
  for (int e = 0; e < 20; ++e) EXPECT_EQ(read(1, e), expected(1, e, 100));
}

TEST_F(ledger_storage_fault_test, an_add_that_needs_a_flush_on_a_full_disk_fails_with_storage_full) {
  _cache_bytes = 1000;
  reopen();
  _fs.set_free_space(0);
  add_range(1, 0, 10, 100);  // fills the cache
  const auto added = try_add(1, 10, 100);
  ASSERT_FALSE(added);
  EXPECT_EQ(added.error(), errc::storage_full);
  EXPECT_EQ(read(1, 9), expected(1, 9, 100));
  _fs.set_free_space(std::nullopt);
  add(1, 10, 100);
  flush();
  reopen();
  for (int e = 0; e <= 10; ++e) EXPECT_EQ(read(1, e), expected(1, e, 100));
}

TEST_F(ledger_storage_fault_test, a_failing_sync_fails_the_flush_with_an_error_naming_the_entry_log) {
  add(1, 0);
  flush();
  add(1, 1);
  _fs.fail_syncs(true);
  const auto flushed = storage().flush();
  ASSERT_FALSE(flushed);
  EXPECT_EQ(flushed.error(), std::errc::io_error);
  EXPECT_NE(flushed.error().detail().find(in_storage(logs().at(0))), std::string::npos) << flushed.error();
  EXPECT_EQ(read(1, 1), expected(1, 1));
}

TEST_F(ledger_storage_fault_test, entries_of_a_flush_whose_sync_failed_are_not_durable) {
  add(1, 0);
  flush();
  add(1, 1);
  _fs.fail_syncs(true);
  ASSERT_FALSE(storage().flush());
  _fs.fail_syncs(false);
  _fs.crash();
  reopen();
  EXPECT_EQ(read(1, 0), expected(1, 0));
  EXPECT_EQ(read_error(1, 1), code(errc::entry_not_found));
}

TEST_F(ledger_storage_fault_test, a_flush_after_a_failed_sync_succeeds_once_syncs_work) {
  add(1, 0);
  flush();
  add(1, 1);
  _fs.fail_syncs(true);
  ASSERT_FALSE(storage().flush());
  _fs.fail_syncs(false);
  flush();
  _fs.crash();
  reopen();
  EXPECT_EQ(read(1, 0), expected(1, 0));
  EXPECT_EQ(read(1, 1), expected(1, 1));
}

TEST_F(ledger_storage_fault_test, open_refuses_entry_logs_without_their_index) {
  add(1, 0);
  flush();
  _storage.reset();
  std::filesystem::remove_all(in_storage("index"));
  const auto opened = db_ledger_storage::open(options());
  ASSERT_FALSE(opened);
  EXPECT_EQ(opened.error(), errc::corrupt_record);
  EXPECT_EQ(logs().size(), 1u);
}

}  // namespace
}  // namespace magnetar::bookie
