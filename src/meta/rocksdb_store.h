// rocksdb_store: the embedded metadata store, a RocksDB database in a local
// directory. What `magnetar standalone` uses; a cluster uses ZooKeeper.
//
// Implements store (store.h states the semantics) over rocksdb_tree, whose
// blocking calls run on an io::blocking_pool; the caller resumes on its own
// executor. Writes are synced before they complete. Sessions live until
// close_session or the end of the process: a store opened over the
// directory of a process that died deletes that process's ephemeral nodes.
// One process at a time may open a directory (RocksDB locks it).
// Thread-safety: as store; construct and destroy on one thread, not a shard's.
#pragma once

#include "base/clock.h"
#include "io/blocking_pool.h"
#include "io/gate.h"
#include "meta/store.h"

#include <atomic>
#include <filesystem>
#include <memory>

namespace magnetar::meta {

class rocksdb_tree;

class rocksdb_store final : public store {
 public:
  struct options {
    std::filesystem::path directory;  // created when missing
    base::clock& clock = base::system_clock();
    // Where the blocking RocksDB calls run; null: a pool of the store's own.
    // A shared pool must outlive the store.
    io::blocking_pool* pool = nullptr;
  };

  explicit rocksdb_store(options opts);
  ~rocksdb_store() override;
  rocksdb_store(const rocksdb_store&) = delete;
  rocksdb_store& operator=(const rocksdb_store&) = delete;

  awaitable<result<void>> start() override;
  awaitable<void> stop() override;

  awaitable<result<session_id>> open_session() override;
  awaitable<result<void>> close_session(session_id id) override;

  listener_handle register_listener(asio::any_io_executor executor,
                                    std::function<void(const notification&)> fn) override;
  // The embedded store never loses its connection or session: listeners are
  // kept but never called.
  listener_handle register_session_listener(asio::any_io_executor executor,
                                            std::function<void(const session_event&)> fn) override;

 private:
  awaitable<result<std::optional<versioned_value>>> do_get(std::string path) override;
  awaitable<result<bool>> do_exists(std::string path) override;
  awaitable<result<std::vector<std::string>>> do_children(std::string path) override;
  awaitable<result<stat>> do_put(std::string path, std::string value, std::optional<std::int64_t> expected_version,
                                 create_options opts) override;
  awaitable<result<void>> do_remove(std::string path, std::optional<std::int64_t> expected_version) override;
  awaitable<result<void>> do_remove_recursive(std::string path) override;

  // Admits the call through the gate and runs `fn(tree)` on the pool.
  template <class F>
  awaitable<std::invoke_result_t<F&, rocksdb_tree&>> on_tree(F fn);

  const options _options;
  std::unique_ptr<io::blocking_pool> _own_pool;
  io::blocking_pool& _pool;
  io::gate _gate{"metadata store"};
  listener_registry<notification> _listeners;
  listener_registry<session_event> _session_listeners;
  std::atomic<bool> _start_called{false};
  // Set once start() has opened the database; read by every operation.
  std::atomic<bool> _open{false};
  std::unique_ptr<rocksdb_tree> _tree;
};

}  // namespace magnetar::meta
