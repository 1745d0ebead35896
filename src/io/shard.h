// Shards: one io_context driven by one thread each.
//
// A shard owns the state placed on it (a connection, a topic, its managed
// ledger): only its thread touches that state, so it needs no locks. Work for
// another shard is posted to it (see run_on.h).
//
// shard_set creates the shards; start() launches their threads and stop()
// ends them. Services stop (their gates close) before the shards do. The set
// itself is created, started and stopped by one thread; shard accessors are
// thread-safe.
#pragma once

#include "io/asio.h"

#include <memory>
#include <optional>
#include <thread>
#include <vector>

namespace magnetar::io {

class shard {
 public:
  using executor_type = asio::io_context::executor_type;

  explicit shard(unsigned id);
  shard(const shard&) = delete;
  shard& operator=(const shard&) = delete;

  unsigned id() const { return _id; }
  executor_type executor() { return _context.get_executor(); }
  asio::io_context& context() { return _context; }

  // True on this shard's own thread.
  bool is_current() const;
  // The shard whose thread is calling, or nullptr on any other thread.
  static shard* current();

 private:
  friend class shard_set;
  void start();
  void stop();

  const unsigned _id;
  asio::io_context _context{1};
  std::optional<asio::executor_work_guard<executor_type>> _keep_running;
  std::thread _thread;
};

class shard_set {
 public:
  // One shard per core unless told otherwise.
  explicit shard_set(unsigned count = default_count());
  ~shard_set();

  static unsigned default_count();

  unsigned size() const { return static_cast<unsigned>(_shards.size()); }
  shard& operator[](unsigned index) { return *_shards[index]; }
  // The shard that owns `key` (a topic name's hash, a connection number).
  shard& for_key(std::size_t key) { return *_shards[key % _shards.size()]; }

  void start();
  // Ends every shard's loop and joins its thread; pending handlers are dropped.
  void stop();

 private:
  std::vector<std::unique_ptr<shard>> _shards;
  bool _started = false;
};

}  // namespace magnetar::io
