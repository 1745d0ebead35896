// entry_index: the bookie's RocksDB database of where each flushed entry lives
// and what state each ledger is in (BookKeeper's EntryLocationIndex and
// LedgerMetadataIndex, here in one database; layout in entry_index_layout.h).
//
// It is the source of truth for what was flushed: a location is written only
// after its record is synced in an entry log, and together with that log's
// committed end, in one WriteBatch written with sync = true. RocksDB does its
// own file I/O, outside io::file_system, so a simulated crash does not touch
// it; every write here is synced, so there is nothing for a crash to lose.
//
// Threading: every call blocks on the disk (blocking pool or the bookie's own
// threads). Reads and writes are thread-safe; a batch belongs to one thread.
#pragma once

#include "base/ids.h"
#include "base/result.h"
#include "bookie/entry_index_layout.h"
#include "bookie/entry_location.h"

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace rocksdb {
class DB;
class WriteBatch;
}  // namespace rocksdb

namespace magnetar::bookie {

class entry_index {
 public:
  // Writes that commit together.
  class batch {
   public:
    batch();
    ~batch();
    batch(batch&&) noexcept;
    batch& operator=(batch&&) noexcept;

    void put_location(ledger_id ledger, entry_id entry, const entry_location& location);
    void put_state(ledger_id ledger, const stored_ledger_state& state);
    // The ledger's tombstone, and one range delete of all its locations.
    void delete_ledger(ledger_id ledger, const stored_ledger_state& tombstone);
    void put_log_end(entry_log_id log, std::uint64_t committed_end);
    void mark_log_removed(entry_log_id log);

    bool empty() const { return _writes == 0; }

   private:
    friend class entry_index;
    std::unique_ptr<rocksdb::WriteBatch> _batch;
    std::size_t _writes = 0;
  };

  // Opens the database in `path`, creating it when missing; refuses one of
  // another layout version.
  static result<std::unique_ptr<entry_index>> open(const std::string& path);
  ~entry_index();
  entry_index(const entry_index&) = delete;
  entry_index& operator=(const entry_index&) = delete;

  // True when open() found no database and made a new one.
  bool created() const { return _created; }
  const std::string& path() const { return _path; }

  result<std::optional<entry_location>> location(ledger_id ledger, entry_id entry) const;
  // The locations of first, first + 1, ... up to `last`, at most `max` of them, ending
  // before the first entry with no location: one seek and a scan, for range reads.
  result<std::vector<entry_location>> locations(ledger_id ledger, entry_id first, entry_id last, std::size_t max) const;
  // The highest entry of `ledger` with a location, found with one seek.
  result<std::optional<entry_id>> last_entry(ledger_id ledger) const;
  // Every ledger's stored state, in ledger order.
  result<std::vector<std::pair<ledger_id, stored_ledger_state>>> ledger_states() const;
  // Every entry log the index has recorded.
  result<std::map<entry_log_id, indexed_log>> logs() const;

  // Applies the batch atomically and durably (sync = true). On failure the
  // error is storage_full (RocksDB ran out of space), corrupt_record or
  // index_failed, with RocksDB's status text in the detail.
  result<void> write(batch& writes);

 private:
  entry_index(std::unique_ptr<rocksdb::DB> db, std::string path);

  std::unique_ptr<rocksdb::DB> _db;
  const std::string _path;
  bool _created = false;
};

}  // namespace magnetar::bookie
