// A test cluster in one process: a metadata store and N bookies on a
// faulty file system (or the plain one) over a temp directory, plus a ledger
// client.
#pragma once

#include "bookie/bookie.h"
#include "io/block_on.h"
#include "io/blocking_pool.h"
#include "io/faulty_file_system.h"
#include "io/running_shards.h"
#include "io/temp_directory.h"
#include "ledger/ledger_client.h"
#include "ledger/local_bookie_client.h"
#include "meta/rocksdb_store.h"

#include <gtest/gtest.h>

#include <memory>
#include <string>
#include <vector>

namespace magnetar::ledger::testing {

class test_cluster {
 public:
  // Benchmarks pass faults = false: the bookies then write through the plain
  // POSIX file system, without the fault layer's bookkeeping. With
  // shard_per_bookie each bookie runs on a shard of its own (as a bookie
  // process with one IO thread would), not all of them on the cluster's two.
  explicit test_cluster(int bookie_count = 1, bool faults = true, bool shard_per_bookie = false)
      : _bookie_count(bookie_count), _fs(faults ? static_cast<io::file_system*>(&fs) : &io::posix_file_system()) {
    for (int i = 0; shard_per_bookie && i < bookie_count; ++i) {
      _own_shards.push_back(std::make_unique<io::running_shards>(1));
    }
    store = std::make_unique<meta::rocksdb_store>(meta::rocksdb_store::options{dir / "meta", clock, &pool});
    EXPECT_TRUE(io::block_on(shards[0], store->start()));
    start_bookies();
  }
  ~test_cluster() {
    stop_bookies();
    io::block_on(shards[0], store->stop());
  }

  // Plays a power cut on every bookie: unsynced data is lost, the processes die.
  void crash_and_restart_bookies() {
    fs.crash();
    client.reset();
    directory.reset();
    _bookies.clear();  // destroyed without stop(): no final flush
    start_bookies();
  }

  bookie::bookie& bookie_at(int i) { return *_bookies[i]; }
  io::shard_set& bookie_shards(int i) { return _own_shards.empty() ? shards.set() : _own_shards[i]->set(); }

  template <class T>
  T run(awaitable<T> work) {
    return io::block_on(shards[0], std::move(work));
  }

  io::temp_directory dir{"ledger-test"};
  io::faulty_file_system fs;
  io::running_shards shards{2};
  io::blocking_pool pool{2};
  base::manual_clock clock;
  std::unique_ptr<meta::rocksdb_store> store;
  std::unique_ptr<static_bookie_directory> directory;
  std::unique_ptr<ledger_client> client;

 private:
  void start_bookies() {
    directory = std::make_unique<static_bookie_directory>();
    for (int i = 0; i < _bookie_count; ++i) {
      bookie::bookie_options o;
      o.journal_directories = {dir / fmt::format("bookie-{}/journal", i)};
      o.ledger_directory = dir / fmt::format("bookie-{}/ledgers", i);
      o.fs = _fs;
      o.journal.preallocate_bytes = 64 << 10;
      auto b = bookie::bookie::open(o, bookie_shards(i), pool, clock);
      EXPECT_TRUE(b) << b.error();
      b.value()->start();
      directory->add(fmt::format("bookie-{}", i), std::make_unique<local_bookie_client>(*b.value()));
      _bookies.push_back(std::move(b).value());
    }
    client = std::make_unique<ledger_client>(*store, *directory, clock);
  }
  void stop_bookies() {
    client.reset();
    directory.reset();
    for (auto& b : _bookies) io::block_on(shards[1], b->stop());
    _bookies.clear();
  }

  int _bookie_count;
  io::file_system* _fs;
  std::vector<std::unique_ptr<io::running_shards>> _own_shards;
  std::vector<std::unique_ptr<bookie::bookie>> _bookies;
};

inline wire::shared_bytes bytes_of(const std::string& text) {
  return wire::shared_bytes::copy_of(std::as_bytes(std::span(text)));
}
inline std::string text_of(const wire::shared_bytes& bytes) { return std::string(bytes.as_chars()); }

}  // namespace magnetar::ledger::testing
