// The fixture of the ledger storage tests: a storage in a temporary directory
// over a faulty file system, reopened at will, with short-hand adds and reads.
// For tests only; one thread.
#pragma once

#include "bookie/db_ledger_storage.h"
#include "bookie/errc.h"
#include "bookie/tests/ledger_storage_test_util.h"
#include "io/faulty_file_system.h"
#include "io/temp_directory.h"

#include <gtest/gtest.h>

namespace magnetar::bookie::testing {

class ledger_storage_test : public ::testing::Test {
 protected:
  ledger_storage_options options() {
    return {.directory = _dir / "storage",
            .fs = _fs_in_use,
            .write_cache_bytes = _cache_bytes,
            .entry_log_max_bytes = _max_log_bytes,
            .compaction_threshold = 0.5};
  }
  // Closes the storage (without a flush, as a crash would) and opens it again.
  void reopen() {
    _storage.reset();
    auto opened = db_ledger_storage::open(options());
    ASSERT_TRUE(opened) << opened.error();
    _storage = std::move(opened).value();
  }
  db_ledger_storage& storage() { return *_storage; }

  result<void> try_add(std::int64_t ledger, std::int64_t entry, std::size_t size = 0, std::int64_t lac = -1) {
    const auto payload = bytes_of(payload_for(ledger_id(ledger), entry_id(entry), size));
    return storage().add_entry(ledger_id(ledger), entry_id(entry), payload, entry_id(lac));
  }
  void add(std::int64_t ledger, std::int64_t entry, std::size_t size = 0, std::int64_t lac = -1) {
    auto added = try_add(ledger, entry, size, lac);
    ASSERT_TRUE(added) << added.error();
  }
  void add_range(std::int64_t ledger, std::int64_t first, std::int64_t count, std::size_t size = 0) {
    for (std::int64_t e = first; e < first + count; ++e) add(ledger, e, size);
  }
  void flush() {
    auto flushed = storage().flush();
    ASSERT_TRUE(flushed) << flushed.error();
  }
  // The entry's payload, or the error's message.
  std::string read(std::int64_t ledger, std::int64_t entry) {
    auto got = storage().read_entry(ledger_id(ledger), entry_id(entry));
    if (!got) return got.error().message();
    return text_of(got.value());
  }
  std::string expected(std::int64_t ledger, std::int64_t entry, std::size_t size = 0) {
    return payload_for(ledger_id(ledger), entry_id(entry), size);
  }
  std::error_code read_error(std::int64_t ledger, std::int64_t entry) {
    auto got = storage().read_entry(ledger_id(ledger), entry_id(entry));
    return got ? std::error_code() : got.error().code();
  }
  std::vector<std::string> logs() { return log_files(_dir / "storage"); }
  // The path of `name` in the storage directory.
  std::string in_storage(std::string_view name) { return _dir / "storage" + "/" + std::string(name); }

  io::temp_directory _dir{"ledger-storage-test"};
  io::faulty_file_system _fs;
  io::file_system* _fs_in_use = &_fs;
  std::uint64_t _cache_bytes = 1 << 20;
  std::uint64_t _max_log_bytes = 1 << 20;
  std::unique_ptr<db_ledger_storage> _storage = db_ledger_storage::open(options()).value();
};

}  // namespace magnetar::bookie::testing
