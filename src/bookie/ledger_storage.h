// ledger_storage: where a bookie's entries live once journaled, as
// BookKeeper's DbLedgerStorage keeps them.
//
// Added entries go to a write cache in memory (readable at once). flush()
// writes the cache to entry log files (append-only, synced), then records each
// entry's location in a RocksDB index; after a flush the journal up to the
// flush's checkpoint is no longer needed. Per-ledger state (fenced, last add
// confirmed, deleted) is kept in the same index. Deleted ledgers' space is
// reclaimed by collect_garbage(), which removes entry logs with no live entry
// and compacts those with few. README.md ("Ledger storage") has the formats.
//
// Durability: an entry is durable once a flush() that began after its add
// returned success; before that only the journal has it, and at a restart the
// bookie replays the journal into add_entry (re-adding a flushed entry is
// harmless: the newest copy wins). A fence is durable at the next flush (the
// bookie journals fences too); a deletion is durable when delete_ledger()
// returns. A failed flush reports nothing durable that isn't and keeps every
// unflushed entry in memory for the next flush.
//
// Threading: every member may block on the disk; call them from a blocking
// pool or the bookie's own threads, never from a shard. Thread-safe: adds,
// reads and one flush or garbage collection may run concurrently (a second
// flush or collection waits for the first). What does touch the disk: an
// add only when the write cache is full (it flushes), state() only at its
// first call for a ledger stored before open (one index seek), a read only
// for an entry no longer in the write cache, fence() never, delete_ledger()
// always (a synced index write).
#pragma once

#include "base/ids.h"
#include "base/result.h"
#include "io/file_system.h"
#include "wire/shared_bytes.h"

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace magnetar::bookie {

struct ledger_storage_options {
  std::string directory;                           // entry logs and the index (in "index/") live here
  io::file_system* fs = &io::posix_file_system();  // entry logs only; RocksDB does its own I/O
  // Bound on the payload bytes of the write cache that takes adds. An add
  // that would pass it flushes (or waits for the running flush) first; a
  // flush holds at most one more cache of this size.
  std::uint64_t write_cache_bytes = 64 << 20;
  // A new entry log starts at the first flush after the current one passes
  // this; a log may overrun it by one flush.
  std::uint64_t entry_log_max_bytes = 512 << 20;
  double compaction_threshold = 0.5;  // compact an entry log whose live share is below this
};

// What the bookie knows about one ledger.
struct ledger_state {
  bool fenced = false;
  entry_id last_add_confirmed{-1};  // the highest LAC a writer reported
  entry_id last_entry{-1};          // the highest entry stored
};

struct gc_stats {
  std::uint64_t logs_removed = 0;     // logs holding only deleted ledgers
  std::uint64_t logs_compacted = 0;   // logs whose live entries were copied out, then removed
  std::uint64_t bytes_reclaimed = 0;  // file bytes removed less the bytes compaction wrote
  std::uint64_t bytes_copied = 0;     // live record bytes compaction rewrote
};

class ledger_storage {
 public:
  virtual ~ledger_storage() = default;

  // Opens (creating when missing) the storage in options.directory and
  // recovers it after a crash: torn or unindexed tails of entry logs are cut,
  // logs without a footer are scanned, the index decides what was flushed.
  // Refuses a directory whose entry logs exist but whose index does not.
  static result<std::unique_ptr<ledger_storage>> open(const ledger_storage_options& options);

  // Stores an entry (replacing an identical re-add, as journal replay does).
  // Fails with errc::ledger_deleted for a deleted ledger and errc::too_large
  // for a payload above write_cache_bytes. When the write cache is full the
  // add first flushes (or waits for the flush under way), so it may block for
  // a flush; if that flush fails, so does the add, with the flush's error
  // (errc::storage_full when the disk is full). Fencing is the bookie's
  // check, not this one's: recovery adds to fenced ledgers.
  virtual result<void> add_entry(ledger_id ledger, entry_id entry, wire::shared_bytes payload,
                                 entry_id last_add_confirmed) = 0;
  // errc::entry_not_found / errc::ledger_not_found / errc::ledger_deleted with
  // the ids in the detail; errc::corrupt_record when the stored record fails
  // its checksum (never wrong bytes).
  virtual result<wire::shared_bytes> read_entry(ledger_id ledger, entry_id entry) = 0;
  // Entries first..last in order, up to the first one that cannot be read: that one's
  // error when it is `first`, else the entries before it (the caller reads on from there
  // and gets the error itself). One call for a whole catch-up read, so that a range costs
  // one hop to the storage thread, not one per entry.
  virtual result<std::vector<wire::shared_bytes>> read_range(ledger_id ledger, entry_id first, entry_id last) {
    std::vector<wire::shared_bytes> entries;
    for (auto e = first.value(); e <= last.value(); ++e) {
      auto read = read_entry(ledger, entry_id(e));
      if (!read) {
        if (entries.empty()) return fail(std::move(read).error());
        break;
      }
      entries.push_back(std::move(read).value());
    }
    return entries;
  }
  // errc::ledger_not_found for a ledger never added to or fenced,
  // errc::ledger_deleted for a deleted one.
  virtual result<ledger_state> state(ledger_id ledger) = 0;
  // Creates the ledger when new (a fence may precede any add); durable at the next flush.
  virtual result<void> fence(ledger_id ledger) = 0;
  // Durable on return. Unflushed entries of the ledger are dropped, its index
  // entries removed; its bytes in entry logs are reclaimed by collect_garbage.
  // A ledger never stored gets the tombstone too, so no late add revives it.
  virtual result<void> delete_ledger(ledger_id ledger) = 0;

  // Makes everything added before the call durable in entry logs and index.
  // errc::storage_full (disk full), a system error naming the file (failed
  // write or sync) or an index error; the unflushed entries stay readable and
  // are written by the next flush.
  virtual result<void> flush() = 0;
  // Removes entry logs that hold only deleted ledgers and compacts those whose
  // live share is below compaction_threshold. The current log is never
  // collected, nor a log that a scan found corrupt.
  virtual result<gc_stats> collect_garbage() = 0;
};

}  // namespace magnetar::bookie
