// Managed ledger tests' cluster: the ledger tests' one (metadata store,
// bookies on a faulty file system, ledger client, manual clock) plus helpers.
// Created and destroyed by the test's thread; the managed ledger runs on shards[0].
#pragma once

#include "io/run_on.h"
#include "ledger/tests/ledger_test_cluster.h"
#include "mledger/managed_ledger.h"

#include <gtest/gtest.h>

#include <memory>
#include <string>
#include <thread>
#include <vector>

namespace magnetar::mledger::testing {

// The ledger tests' cluster (store, bookies, ledger client, manual clock),
// plus what managed ledger tests need on top. Managed ledgers over the old
// ledger client must be abandoned before crash_and_restart_bookies().
class test_cluster : public ledger::testing::test_cluster {
 public:
  using ledger::testing::test_cluster::test_cluster;

  managed_ledger_deps deps() { return {*store, *client, clock}; }

  std::unique_ptr<managed_ledger> open(const std::string& name, managed_ledger_config config = {}) {
    auto ml = run(managed_ledger::open(name, std::move(config), deps()));
    EXPECT_TRUE(ml) << ml.error();
    return ml ? std::move(ml).value() : nullptr;
  }
};

using ledger::testing::bytes_of;
using ledger::testing::text_of;

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
