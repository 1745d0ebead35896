// A storage cluster in one process for managed ledger tests and benchmarks: the
// embedded metadata store and N bookies on a faulty file system over a temp directory,
// a ledger client, and a manual clock. Like src/ledger/tests/ledger_test_cluster.h, but
// it lends out the store, which a managed ledger needs.
// Created and destroyed by the test's thread; the managed ledger runs on shards[0].
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
#include "io/run_on.h"
#include "mledger/managed_ledger.h"

#include <gtest/gtest.h>

#include <memory>
#include <thread>
#include <string>
#include <vector>

namespace magnetar::mledger::testing {

class test_cluster {
 public:
  explicit test_cluster(int bookie_count = 1) : _bookie_count(bookie_count) {
    store = std::make_unique<meta::rocksdb_store>(meta::rocksdb_store::options{dir / "meta", clock, &pool});
    EXPECT_TRUE(io::block_on(shards[0], store->start()));
    start_bookies();
  }
  ~test_cluster() {
    stop_bookies();
    io::block_on(shards[0], store->stop());
  }

  // A power cut on every bookie: unsynced data is lost, the processes die. Managed
  // ledgers over the old ledger client must be abandoned first.
  void crash_and_restart_bookies() {
    fs.crash();
    client.reset();
    directory.reset();
    _bookies.clear();  // destroyed without stop(): no final flush
    start_bookies();
  }

  managed_ledger_deps deps() { return {*store, *client, clock}; }

  std::unique_ptr<managed_ledger> open(const std::string& name, managed_ledger_config config = {}) {
    auto ml = run(managed_ledger::open(name, std::move(config), deps()));
    EXPECT_TRUE(ml) << ml.error();
    return ml ? std::move(ml).value() : nullptr;
  }

  template <class T>
  T run(awaitable<T> work) {
    return io::block_on(shards[0], std::move(work));
  }

  io::temp_directory dir{"mledger-test"};
  io::faulty_file_system fs;
  io::running_shards shards{2};
  io::blocking_pool pool{2};
  base::manual_clock clock;
  std::unique_ptr<meta::rocksdb_store> store;
  std::unique_ptr<ledger::static_bookie_directory> directory;
  std::unique_ptr<ledger::ledger_client> client;

 private:
  void start_bookies() {
    directory = std::make_unique<ledger::static_bookie_directory>();
    for (int i = 0; i < _bookie_count; ++i) {
      bookie::bookie_options o;
      o.journal_directories = {dir / fmt::format("bookie-{}/journal", i)};
      o.ledger_directory = dir / fmt::format("bookie-{}/ledgers", i);
      o.fs = &fs;
      o.journal.preallocate_bytes = 64 << 10;
      auto b = bookie::bookie::open(o, shards.set(), pool, clock);
      EXPECT_TRUE(b) << b.error();
      b.value()->start();
      directory->add(fmt::format("bookie-{}", i), std::make_unique<ledger::local_bookie_client>(*b.value()));
      _bookies.push_back(std::move(b).value());
    }
    client = std::make_unique<ledger::ledger_client>(*store, *directory, clock);
  }
  void stop_bookies() {
    client.reset();
    directory.reset();
    for (auto& b : _bookies) io::block_on(shards[1], b->stop());
    _bookies.clear();
  }

  int _bookie_count;
  std::vector<std::unique_ptr<bookie::bookie>> _bookies;
};

inline wire::shared_bytes bytes_of(const std::string& text) {
  return wire::shared_bytes::copy_of(std::as_bytes(std::span(text)));
}
inline std::string text_of(const wire::shared_bytes& bytes) { return std::string(bytes.as_chars()); }

}  // namespace magnetar::mledger::testing

namespace magnetar::mledger::testing {

// Runs `fn` on the managed ledger's shard and returns what it returns: the test thread
// never touches shard-owned state while a background tick may be running.
template <class F>
auto call(test_cluster& c, F fn) {
  using R = decltype(fn());
  return c.run([&]() -> awaitable<R> { co_return fn(); }());
}

// Polls `condition` on the shard until it holds (false after a generous number of
// tries): for work the manual clock set off in the background.
template <class F>
bool eventually(test_cluster& c, F condition) {
  for (int i = 0; i < 200'000; ++i) {
    if (call(c, condition)) return true;
    std::this_thread::yield();
  }
  return false;
}

// Adds `count` entries one after another: "<prefix><i>".
inline std::vector<position> add_entries(test_cluster& c, managed_ledger& ml, int count,
                                         const std::string& prefix = "e", int first = 0) {
  std::vector<position> out;
  for (int i = first; i < first + count; ++i) {
    auto p = c.run(ml.add_entry(bytes_of(prefix + std::to_string(i))));
    EXPECT_TRUE(p) << p.error();
    if (p) out.push_back(p.value());
  }
  return out;
}

// Starts `count` adds at once and returns their results in completion order.
inline std::vector<result<position>> add_pipelined(test_cluster& c, managed_ledger& ml, int count,
                                                   const std::string& prefix = "p") {
  std::vector<result<position>> completed;
  c.run([&]() -> awaitable<void> {
    auto executor = co_await asio::this_coro::executor;
    io::oneshot_signal all_done(executor);
    for (int i = 0; i < count; ++i) {
      io::spawn(executor, [&, i]() -> awaitable<void> {
        auto p = co_await ml.add_entry(bytes_of(prefix + std::to_string(i)));
        completed.push_back(std::move(p));
        if (completed.size() == static_cast<std::size_t>(count)) all_done.fire();
      });
    }
    co_await all_done.wait();
  }());
  return completed;
}

inline std::vector<std::string> texts(const std::vector<entry>& entries) {
  std::vector<std::string> out;
  for (const auto& e : entries) out.push_back(text_of(e.data));
  return out;
}

inline std::vector<std::string> names(const std::string& prefix, int first, int count) {
  std::vector<std::string> out;
  for (int i = first; i < first + count; ++i) out.push_back(prefix + std::to_string(i));
  return out;
}

// Small ledgers that roll over by entry count at once.
inline managed_ledger_config small_ledgers(std::uint64_t entries_per_ledger) {
  managed_ledger_config config;
  config.max_entries_per_ledger = entries_per_ledger;
  config.minimum_rollover_time = base::clock::duration::zero();
  return config;
}

}  // namespace magnetar::mledger::testing
