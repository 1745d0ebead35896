// Adds, reads, ledger state, fencing and deletion.
#include "bookie/tests/ledger_storage_test_fixture.h"

#include "base/errc.h"

#include <atomic>
#include <thread>

namespace magnetar::bookie {
namespace {

using testing::bytes_of;
using ledger_storage_basic_test = testing::ledger_storage_test;

std::error_code code(errc e) { return make_error_code(e); }

TEST_F(ledger_storage_basic_test, an_added_entry_reads_back_before_any_flush) {
  add(1, 0);
  EXPECT_EQ(read(1, 0), expected(1, 0));
  EXPECT_TRUE(logs().empty());
}

TEST_F(ledger_storage_basic_test, a_flushed_entry_reads_back_from_the_entry_log) {
  add(1, 0, 300);
  add(1, 1, 300);
  flush();
  EXPECT_EQ(logs().size(), 1u);
  EXPECT_EQ(read(1, 0), expected(1, 0, 300));
  EXPECT_EQ(read(1, 1), expected(1, 1, 300));
}

TEST_F(ledger_storage_basic_test, flushed_entries_read_back_after_a_reopen) {
  for (int ledger = 1; ledger <= 3; ++ledger) add_range(ledger, 0, 20, 100);
  flush();
  reopen();
  for (int ledger = 1; ledger <= 3; ++ledger) {
    for (int entry = 0; entry < 20; ++entry) EXPECT_EQ(read(ledger, entry), expected(ledger, entry, 100));
  }
}

TEST_F(ledger_storage_basic_test, the_open_through_the_interface_serves_the_same_directory) {
  add(1, 0);
  flush();
  _storage.reset();
  auto opened = ledger_storage::open(options());
  ASSERT_TRUE(opened) << opened.error();
  EXPECT_EQ(testing::text_of(opened.value()->read_entry(ledger_id(1), entry_id(0)).value()), expected(1, 0));
}

TEST_F(ledger_storage_basic_test, reading_a_ledger_never_stored_is_ledger_not_found) {
  EXPECT_EQ(read_error(9, 0), code(errc::ledger_not_found));
  EXPECT_EQ(storage().state(ledger_id(9)).error(), errc::ledger_not_found);
}

TEST_F(ledger_storage_basic_test, reading_an_entry_never_stored_is_entry_not_found_naming_it) {
  add(1, 0);
  flush();
  const auto got = storage().read_entry(ledger_id(1), entry_id(5));
  ASSERT_FALSE(got);
  EXPECT_EQ(got.error(), errc::entry_not_found);
  EXPECT_NE(got.error().detail().find("ledger 1 entry 5"), std::string::npos) << got.error();
}

TEST_F(ledger_storage_basic_test, negative_ids_are_invalid_arguments) {
  EXPECT_EQ(try_add(-1, 0).error(), base::errc::invalid_argument);
  EXPECT_EQ(try_add(1, -1).error(), base::errc::invalid_argument);
  EXPECT_EQ(read_error(1, -1), make_error_code(base::errc::invalid_argument));
}

TEST_F(ledger_storage_basic_test, state_reports_the_last_entry_and_the_highest_lac) {
  add(1, 0, 0, -1);
  add(1, 2, 0, 1);
  add(1, 1, 0, 0);
  const auto state = storage().state(ledger_id(1)).value();
  EXPECT_FALSE(state.fenced);
  EXPECT_EQ(state.last_entry, entry_id(2));
  EXPECT_EQ(state.last_add_confirmed, entry_id(1));
}

TEST_F(ledger_storage_basic_test, state_after_a_reopen_comes_from_the_index) {
  add(1, 0, 0, -1);
  add(1, 1, 0, 0);
  add(1, 2, 0, 1);
  flush();
  reopen();
  const auto state = storage().state(ledger_id(1)).value();
  EXPECT_EQ(state.last_entry, entry_id(2));
  EXPECT_EQ(state.last_add_confirmed, entry_id(1));
}

TEST_F(ledger_storage_basic_test, the_last_entry_counts_entries_in_cache_and_in_logs) {
  add_range(1, 0, 5);
  flush();
  reopen();
  add(1, 5);
  EXPECT_EQ(storage().state(ledger_id(1)).value().last_entry, entry_id(5));
}

TEST_F(ledger_storage_basic_test, a_fence_shows_in_the_state) {
  add(1, 0);
  ASSERT_TRUE(storage().fence(ledger_id(1)));
  EXPECT_TRUE(storage().state(ledger_id(1)).value().fenced);
}

TEST_F(ledger_storage_basic_test, a_fence_of_an_unknown_ledger_creates_it_fenced_and_empty) {
  ASSERT_TRUE(storage().fence(ledger_id(4)));
  const auto state = storage().state(ledger_id(4)).value();
  EXPECT_TRUE(state.fenced);
  EXPECT_EQ(state.last_entry, entry_id(-1));
  EXPECT_EQ(read_error(4, 0), code(errc::entry_not_found));
}

TEST_F(ledger_storage_basic_test, a_fence_is_durable_once_flushed) {
  add(1, 0);
  flush();
  ASSERT_TRUE(storage().fence(ledger_id(1)));
  flush();  // nothing to write but the fence
  reopen();
  EXPECT_TRUE(storage().state(ledger_id(1)).value().fenced);
}

TEST_F(ledger_storage_basic_test, a_fence_not_yet_flushed_is_lost_with_the_process) {
  add(1, 0);
  flush();
  ASSERT_TRUE(storage().fence(ledger_id(1)));
  reopen();  // the bookie's journal replays the fence
  EXPECT_FALSE(storage().state(ledger_id(1)).value().fenced);
}

TEST_F(ledger_storage_basic_test, a_deleted_ledger_reads_and_reports_ledger_deleted) {
  add(1, 0);
  flush();
  add(1, 1);
  ASSERT_TRUE(storage().delete_ledger(ledger_id(1)));
  EXPECT_EQ(read_error(1, 0), code(errc::ledger_deleted));
  EXPECT_EQ(read_error(1, 1), code(errc::ledger_deleted));
  EXPECT_EQ(storage().state(ledger_id(1)).error(), errc::ledger_deleted);
}

TEST_F(ledger_storage_basic_test, adding_to_a_deleted_ledger_fails_with_ledger_deleted) {
  add(1, 0);
  ASSERT_TRUE(storage().delete_ledger(ledger_id(1)));
  EXPECT_EQ(try_add(1, 1).error(), errc::ledger_deleted);
  EXPECT_EQ(storage().fence(ledger_id(1)).error(), errc::ledger_deleted);
}

TEST_F(ledger_storage_basic_test, a_deletion_is_durable_without_a_flush) {
  add(1, 0);
  add(2, 0);
  flush();
  ASSERT_TRUE(storage().delete_ledger(ledger_id(1)));
  reopen();
  EXPECT_EQ(read_error(1, 0), code(errc::ledger_deleted));
  EXPECT_EQ(try_add(1, 1).error(), errc::ledger_deleted);
  EXPECT_EQ(read(2, 0), expected(2, 0));
}

TEST_F(ledger_storage_basic_test, unflushed_entries_of_a_deleted_ledger_are_never_flushed) {
  add(1, 0);
  add(2, 0);
  ASSERT_TRUE(storage().delete_ledger(ledger_id(1)));
  flush();
  reopen();
  EXPECT_EQ(read_error(1, 0), code(errc::ledger_deleted));
  EXPECT_EQ(read(2, 0), expected(2, 0));
}

TEST_F(ledger_storage_basic_test, re_adding_a_flushed_entry_as_journal_replay_does_is_harmless) {
  add_range(1, 0, 3);
  flush();
  reopen();
  add_range(1, 0, 3);  // replay
  EXPECT_EQ(read(1, 1), expected(1, 1));
  flush();
  reopen();
  for (int e = 0; e < 3; ++e) EXPECT_EQ(read(1, e), expected(1, e));
  EXPECT_EQ(storage().state(ledger_id(1)).value().last_entry, entry_id(2));
}

TEST_F(ledger_storage_basic_test, an_entry_larger_than_the_write_cache_is_too_large) {
  _cache_bytes = 1000;
  reopen();
  EXPECT_EQ(try_add(1, 0, 1001).error(), errc::too_large);
  EXPECT_EQ(read_error(1, 0), code(errc::ledger_not_found));
}

TEST_F(ledger_storage_basic_test, a_full_write_cache_is_flushed_to_make_room) {
  _cache_bytes = 1000;
  reopen();
  add_range(1, 0, 30, 100);  // 3000 bytes through a 1000-byte cache
  EXPECT_FALSE(logs().empty());
  reopen();  // no explicit flush: what the adds flushed is durable
  EXPECT_EQ(read(1, 0), expected(1, 0, 100));
  EXPECT_EQ(read(1, 19), expected(1, 19, 100));
}

TEST_F(ledger_storage_basic_test, adds_and_reads_continue_while_flushes_run) {
  std::atomic<bool> done{false};
  std::thread flusher([&] {
    while (!done.load()) ASSERT_TRUE(storage().flush());
  });
  for (int ledger = 1; ledger <= 2; ++ledger) {
    for (int e = 0; e < 500; ++e) {
      add(ledger, e, 64);
      ASSERT_EQ(read(ledger, e), expected(ledger, e, 64));
    }
  }
  done = true;
  flusher.join();
  flush();
  reopen();
  for (int ledger = 1; ledger <= 2; ++ledger) {
    for (int e = 0; e < 500; ++e) ASSERT_EQ(read(ledger, e), expected(ledger, e, 64));
  }
}

}  // namespace
}  // namespace magnetar::bookie
