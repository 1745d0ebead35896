// entry_log: the entry log files of a storage directory (BookKeeper's
// DefaultEntryLogger with a single active log).
//
// A flush appends its entries to the current log, then sync()s: only then do
// they count in the log's metadata (which ledgers it holds, how many bytes
// each) and may the index point at them. A failed flush rollback()s: the log
// is cut back to its last synced end. A new log starts when the current one
// has passed max_log_bytes - at a flush's first append, so one flush never
// spans two logs and a log may overrun the limit by one flush. The log being
// left is sealed with a footer holding its metadata; the current log itself
// is created at the first append after open, never reused across restarts.
//
// open() recovers the directory against what the entry index says (the index
// is the source of truth for what was flushed): a log the index never
// committed is removed; a log's bytes past its committed end (a torn or
// unindexed tail of a flush cut short) are cut; a log corrupt before its
// committed end is kept, reported and never garbage-collected; a log without
// an intact footer is scanned to rebuild its metadata, then sealed.
//
// Threading: find() and the read-only accessors are thread-safe. append,
// sync, rollback, remove and the other writers belong to one thread at a time
// (ledger_storage's flush or garbage collection).
#pragma once

#include "base/ids.h"
#include "base/result.h"
#include "bookie/entry_location.h"
#include "bookie/entry_log_file.h"
#include "bookie/entry_log_metadata.h"
#include "io/file_system.h"

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <shared_mutex>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace magnetar::bookie {

struct entry_log_options {
  std::string directory;
  io::file_system* fs = &io::posix_file_system();
  std::uint64_t max_log_bytes = 512 << 20;
};

// What open() found and did.
struct entry_log_recovery {
  std::vector<entry_log_id> missing;    // the index names them, the disk has them not
  std::vector<entry_log_id> unindexed;  // on disk, never committed or already removed: deleted
  std::vector<entry_log_id> damaged;    // corrupt before their committed end: kept as they are
  std::uint64_t bytes_cut = 0;          // torn or uncommitted tails cut off
};

// A log that garbage collection may consider.
struct sealed_log {
  entry_log_id id;
  entry_log_metadata metadata;
  std::uint64_t file_bytes = 0;
};

class entry_log {
 public:
  static result<std::unique_ptr<entry_log>> open(const entry_log_options& options,
                                                 const std::map<entry_log_id, indexed_log>& indexed);
  // Seals the current log, so that the next open reads its footer.
  ~entry_log();
  entry_log(const entry_log&) = delete;
  entry_log& operator=(const entry_log&) = delete;

  // Whether a file name in the directory is an entry log's ("<16 hex digits>.log").
  static bool is_log_name(std::string_view name);

  const entry_log_recovery& recovery() const { return _recovery; }
  std::string path_of(entry_log_id id) const;

  // --- thread-safe ---

  // Null when there is no such log (never was, or removed).
  std::shared_ptr<const entry_log_file> find(entry_log_id id) const;
  std::vector<entry_log_id> log_ids() const;
  std::optional<entry_log_id> current() const;

  // --- the writer: one thread at a time ---

  result<entry_location> append(ledger_id ledger, entry_id entry, std::span<const std::byte> payload);
  // Makes every appended record durable and counts it in its log's metadata.
  result<void> sync();
  // Drops what was appended since the last sync(). Should the log refuse to
  // be cut, the next append starts a new one.
  void rollback();
  // The current log and how far it is synced: what the index records.
  std::optional<std::pair<entry_log_id, std::uint64_t>> committed_end() const;

  // Logs other than the current one that are not damaged.
  std::vector<sealed_log> sealed_logs() const;
  // Takes a log out of use and deletes its file; readers that hold it finish.
  result<void> remove(entry_log_id id);
  // Keeps a log that a scan found corrupt away from garbage collection.
  void mark_damaged(entry_log_id id);

 private:
  struct log_state {
    std::shared_ptr<entry_log_file> file;
    entry_log_metadata metadata;
    bool damaged = false;
  };

  explicit entry_log(const entry_log_options& options);

  result<void> recover(entry_log_id id, const indexed_log& indexed);
  result<void> rotate();
  void seal_quietly(const std::shared_ptr<entry_log_file>& file);

  const entry_log_options _options;
  io::file_system& _fs;
  entry_log_recovery _recovery;

  mutable std::shared_mutex _mutex;
  std::map<entry_log_id, log_state> _logs;   // guarded by _mutex
  std::shared_ptr<entry_log_file> _current;  // written by the writer under _mutex

  // The writer's own state.
  entry_log_id _next_id{1};
  std::uint64_t _committed = 0;  // of _current
  entry_log_metadata _pending;   // appended since the last sync
};

}  // namespace magnetar::bookie
