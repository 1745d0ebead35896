// db_ledger_storage: the ledger_storage that ledger_storage::open() makes - a
// write cache, entry logs and a RocksDB entry index, as BookKeeper's
// SingleDirectoryDbLedgerStorage arranges them (contract in ledger_storage.h).
//
// Locks, outermost first:
//   _flush_mutex        one flush or one log's garbage collection at a time;
//                       whoever holds it is entry_log's single writer
//   _rotation_mutex     adds and reads share it to use the two caches; a
//                       flush takes it alone to swap them, so no add can land
//                       in a cache that is already being written out
//   _index_write_mutex  orders the index batches of flushes and compactions
//                       against deletions: a batch's locations and dirty
//                       states are taken under it, so none can land after a
//                       ledger's tombstone
// ledger_table, write_cache, entry_log and entry_index lock inside themselves.
// Thread-safe as ledger_storage.
#pragma once

#include "bookie/entry_index.h"
#include "bookie/entry_log.h"
#include "bookie/ledger_storage.h"
#include "bookie/ledger_table.h"
#include "bookie/write_cache.h"

#include <memory>
#include <mutex>
#include <optional>
#include <shared_mutex>
#include <vector>

namespace magnetar::bookie {

class db_ledger_storage final : public ledger_storage {
 public:
  static result<std::unique_ptr<db_ledger_storage>> open(const ledger_storage_options& options);
  ~db_ledger_storage() override = default;

  result<void> add_entry(ledger_id ledger, entry_id entry, wire::shared_bytes payload,
                         entry_id last_add_confirmed) override;
  result<wire::shared_bytes> read_entry(ledger_id ledger, entry_id entry) override;
  // Flushed entries come a run at a time: one index scan for their locations and one
  // pread for each stretch of records that lie back to back in a log (a flush writes a
  // ledger's entries in order, so a catch-up read is mostly one pread per flush).
  result<std::vector<wire::shared_bytes>> read_range(ledger_id ledger, entry_id first, entry_id last) override;
  result<ledger_state> state(ledger_id ledger) override;
  result<void> fence(ledger_id ledger) override;
  result<void> delete_ledger(ledger_id ledger) override;
  result<void> flush() override;
  result<gc_stats> collect_garbage() override;

  // What open() found in the entry logs (for the bookie's start-up report and tests).
  const entry_log_recovery& recovery() const { return _logs->recovery(); }

 private:
  // An entry appended to the entry log and not yet in the index.
  struct placed_entry {
    ledger_id ledger;
    entry_id entry;
    entry_location location;
  };

  // The caches a read looks in first, as they were when it began.
  struct write_caches {
    std::shared_ptr<write_cache> current;
    std::shared_ptr<write_cache> flushing;  // may be null
    std::optional<wire::shared_bytes> get(ledger_id ledger, entry_id entry) const;
  };
  // The caches, once the ledger is known to be readable (ledger_not_found, ledger_deleted
  // and invalid ids otherwise, naming `entry`).
  result<write_caches> caches_to_read(ledger_id ledger, entry_id entry);

  db_ledger_storage(const ledger_storage_options& options, std::unique_ptr<entry_index> index,
                    std::unique_ptr<entry_log> logs);

  // Under _flush_mutex.
  result<void> flush_locked();
  // Appends the cache's entries (of live ledgers) to the entry log, syncs,
  // and commits their locations with the dirty ledger states.
  result<void> write_out(const write_cache* cache);
  // One index batch: the locations (of ledgers still live), the dirty
  // states and the current log's committed end.
  result<void> commit(const std::vector<placed_entry>& placed);
  result<wire::shared_bytes> read_flushed(ledger_id ledger, entry_id entry);
  // Appends flushed entries first.. (up to `last`, at most one index scan's worth) to
  // `out`; entry_not_found when `first` has no location.
  result<void> read_flushed_run(ledger_id ledger, entry_id first, entry_id last, std::vector<wire::shared_bytes>& out);
  // A failed entry log write or sync: storage_full when the disk is full,
  // else the system error, with `context` leading the detail.
  static error disk_failure(const error& e, std::string_view context);

  // Garbage collection of one log, each under _flush_mutex
  // (db_ledger_storage_gc.cc).
  result<void> remove_log(entry_log_id id);
  // The record bytes copied, or nullopt when the log turned out corrupt and
  // was left alone.
  result<std::optional<std::uint64_t>> compact_log(entry_log_id id);

  const ledger_storage_options _options;
  std::unique_ptr<entry_index> _index;
  std::unique_ptr<entry_log> _logs;
  ledger_table _ledgers;

  std::mutex _flush_mutex;
  std::mutex _index_write_mutex;

  mutable std::shared_mutex _rotation_mutex;
  std::shared_ptr<write_cache> _current;   // takes adds
  std::shared_ptr<write_cache> _flushing;  // being flushed, or left by a failed flush; else null
  std::uint64_t _swaps = 0;                // lets a waiting add see that a flush made room
};

}  // namespace magnetar::bookie
