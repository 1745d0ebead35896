// rocksdb_tree: the metadata tree in a RocksDB database, with blocking calls.
//
// The engine under rocksdb_store, which runs these calls on a blocking pool;
// nothing here may run on a shard thread. Layout in rocksdb_layout.h.
// Every write is a single WriteBatch with sync = true: metadata (ledger
// metadata, cursor positions, ownership) must be on disk before anyone is told
// it was written. A mutation reads, checks and writes under one mutex:
// metadata writes are rare, so simple serial order is worth more than
// concurrency, and the same mutex orders the notifications. Reads take no
// lock: RocksDB gives each read a consistent view and a batch is atomic.
// Thread-safety: all calls may run concurrently, except open/close/destruction.
#pragma once

#include "base/clock.h"
#include "base/result.h"
#include "meta/listeners.h"
#include "meta/rocksdb_layout.h"
#include "meta/types.h"

#include <rocksdb/db.h>
#include <rocksdb/write_batch.h>

#include <filesystem>
#include <memory>
#include <mutex>
#include <optional>
#include <set>
#include <string>
#include <vector>

namespace magnetar::meta {

class rocksdb_tree {
 public:
  // Opens (creating when missing) the database in `directory`, refuses one of
  // another layout, starts a new session epoch and deletes the ephemeral
  // nodes of earlier processes, publishing their deletion to `listeners`.
  static result<std::unique_ptr<rocksdb_tree>> open(const std::filesystem::path& directory, base::clock& clock,
                                                    listener_registry<notification>& listeners);
  ~rocksdb_tree();
  rocksdb_tree(const rocksdb_tree&) = delete;
  rocksdb_tree& operator=(const rocksdb_tree&) = delete;

  // Flushes and closes the database; later calls are bugs.
  result<void> close();

  result<std::optional<versioned_value>> get(const std::string& path);
  result<bool> exists(const std::string& path);
  result<std::vector<std::string>> children(const std::string& path);

  // Arguments are checked by the caller (store.h states the semantics).
  result<stat> put(const std::string& path, const std::string& value, std::optional<std::int64_t> expected_version,
                   const create_options& options);
  result<void> remove(const std::string& path, std::optional<std::int64_t> expected_version);
  result<void> remove_recursive(const std::string& path);

  result<session_id> open_session();
  result<void> close_session(session_id id);

 private:
  // A mutation being prepared: committed durably, then published, as one.
  struct pending_write {
    rocksdb::WriteBatch batch;
    std::vector<notification> events;
  };

  rocksdb_tree(std::unique_ptr<rocksdb::DB> db, std::filesystem::path directory, base::clock& clock,
               listener_registry<notification>& listeners);

  result<void> begin_epoch();
  result<std::optional<rocksdb_layout::node_record>> read_node(const std::string& path);
  // Keys (and values) in [prefix, prefix_end(prefix)), in key order.
  result<std::vector<std::pair<std::string, std::string>>> scan(const std::string& prefix, std::size_t limit);
  // Ancestors of `path` that don't exist yet, outermost first.
  result<std::vector<std::string>> missing_ancestors(const std::string& path);
  // Deletes the node (and its index entries) and records the notifications.
  void delete_node(pending_write& w, const std::string& path, session_id owner);
  result<void> delete_ephemerals(std::string_view prefix, std::string_view why);
  result<void> commit(pending_write& w, std::string_view what);
  std::int64_t now_ms() const;
  error backend_error(const rocksdb::Status& status, std::string_view what) const;

  std::unique_ptr<rocksdb::DB> _db;
  const std::filesystem::path _directory;
  base::clock& _clock;
  listener_registry<notification>& _listeners;

  // Orders mutations (read-check-write) and their notifications.
  std::mutex _write_mutex;
  std::int64_t _epoch = 0;              // set by open, then read-only
  std::int64_t _sessions_in_epoch = 0;  // guarded by _write_mutex
  std::set<session_id> _open_sessions;  // guarded by _write_mutex
};

}  // namespace magnetar::meta
