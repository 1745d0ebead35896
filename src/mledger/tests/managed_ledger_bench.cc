// Managed ledger throughput over one embedded bookie (journal on a faulty_file_system
// over a temp directory, so fdatasync is real): pipelined adds of 100 B and 1 KiB, and
// catch-up reads of a 1 GiB backlog from the bookie and from the entry cache. The cluster's
// clock is a manual one, so add latency is not measured here (write_stats() would read 0).
#include "mledger/managed_ledger.h"

#include "mledger/managed_cursor.h"
#include "mledger_test_cluster.h"

#include <benchmark/benchmark.h>

#include <string>

namespace magnetar::mledger {
namespace {

using testing::test_cluster;

// Keeps `in_flight` adds going until `total` have completed.
void add_many(test_cluster& c, managed_ledger& ml, int total, int in_flight, std::size_t size) {
  const std::string text(size, 'x');
  const auto payload = wire::shared_bytes::copy_of(std::as_bytes(std::span(text)));
  c.run([&]() -> awaitable<void> {
    auto executor = co_await asio::this_coro::executor;
    io::oneshot_signal done(executor);
    int started = 0, completed = 0;
    std::function<void()> start_one = [&] {
      ++started;
      io::spawn(executor, [&]() -> awaitable<void> {
        auto p = co_await ml.add_entry(payload);
        MAGNETAR_ASSERT(p.has_value(), "add failed");
        if (++completed == total) done.fire();
        if (started < total) start_one();
        co_return;
      });
    };
    for (int i = 0; i < std::min(in_flight, total); ++i) start_one();
    co_await done.wait();
  }());
}

void bm_add(benchmark::State& state) {
  test_cluster c;
  auto ml = c.open("bench");
  const auto size = static_cast<std::size_t>(state.range(0));
  const int in_flight = static_cast<int>(state.range(1));
  constexpr int batch = 2000;
  for (auto _ : state) add_many(c, *ml, batch, in_flight, size);
  state.SetItemsProcessed(state.iterations() * batch);
  state.SetBytesProcessed(state.iterations() * batch * static_cast<std::int64_t>(size));
  (void)c.run(ml->close());
}
BENCHMARK(bm_add)->Args({100, 1})->Args({100, 256})->Args({1024, 256})->Unit(benchmark::kMillisecond)->UseRealTime();

// Reads a 1 GiB backlog through a cursor, 100 entries at a time as a dispatcher reads:
// from storage (a reopened managed ledger has an empty cache; the entry logs are in the
// page cache, just written) or from the entry cache (entries just added, a cache that
// holds them all). Each entry read from storage is inserted into the cache as well.
void bm_catch_up_read(benchmark::State& state) {
  const auto size = static_cast<std::size_t>(state.range(0));
  const bool from_cache = state.range(1) != 0;
  constexpr std::int64_t backlog_bytes = 1 << 30;
  const int entries = static_cast<int>(backlog_bytes / static_cast<std::int64_t>(size));
  test_cluster c;
  managed_ledger_config config;
  config.cache.max_bytes = from_cache ? 2 * backlog_bytes : 64 << 20;
  config.cache.time_to_live = std::chrono::hours(1);
  auto ml = c.open("bench", config);
  add_many(c, *ml, entries, 256, size);
  if (!from_cache) {
    (void)c.run(ml->close());
    ml = c.open("bench", config);
  }
  auto* cursor = c.run(ml->open_cursor("sub", initial_position::earliest)).value();
  std::int64_t read = 0;
  for (auto _ : state) {
    (void)c.run(cursor->reset(position::earliest()));
    if (!from_cache)
      c.run([&]() -> awaitable<void> {
        ml->clear_cache();
        co_return;
      }());
    // On the managed ledger's shard, as a dispatcher reads: no thread hop per batch.
    c.run([&]() -> awaitable<void> {
      for (;;) {
        auto batch = co_await cursor->read_entries(100);
        MAGNETAR_ASSERT(batch.has_value(), "read: {}", batch.error());
        if (batch.value().empty()) break;
        read += static_cast<std::int64_t>(batch.value().size());
      }
    }());
  }
  state.SetItemsProcessed(read);
  state.SetBytesProcessed(read * static_cast<std::int64_t>(size));
  (void)c.run(ml->close());
}
BENCHMARK(bm_catch_up_read)
    ->ArgNames({"bytes", "from_cache"})
    ->Args({1024, 0})
    ->Args({16 << 10, 0})
    ->Args({128 << 10, 0})
    ->Args({1024, 1})
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime();

}  // namespace
}  // namespace magnetar::mledger
