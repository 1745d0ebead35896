// Latency and throughput of the embedded metadata store: synced puts and
// gets, from one caller and from several concurrent callers spread over two
// shards. Per-operation latency percentiles are reported as counters (us).
// The store lives under the system temp dir: on a tmpfs the sync costs
// nothing and put figures mean little.
#include "base/histogram.h"
#include "io/run_on.h"
#include "io/running_shards.h"
#include "io/temp_directory.h"
#include "meta/rocksdb_store.h"

#include <benchmark/benchmark.h>

#include <chrono>
#include <latch>
#include <string>

namespace magnetar::meta {
namespace {

constexpr std::int64_t highest_latency_us = 10'000'000;
const std::string value_256b(256, 'm');

class bench_store {
 public:
  bench_store() {
    auto started = io::block_on(shards[0], store.start());
    MAGNETAR_ASSERT(started, "start: {}", started.error());
  }
  ~bench_store() { io::block_on(shards[0], store.stop()); }

  io::temp_directory dir{"magnetar-meta-bench"};
  io::running_shards shards{2};
  rocksdb_store store{rocksdb_store::options{.directory = dir / "meta"}};
};

// Runs `ops_per_iteration` calls of op(caller, i) per benchmark iteration,
// split over `callers` coroutines alternating between the two shards.
template <class Op>
void drive(benchmark::State& state, bench_store& b, std::int64_t ops_per_iteration, Op op) {
  const auto callers = state.range(0);
  const auto per_caller = ops_per_iteration / callers;
  // One histogram per shard: the callers of one shard never run at once.
  std::vector<base::histogram> latency(2, base::histogram(highest_latency_us));
  std::int64_t failures = 0;  // written on the shards, read after the latch
  std::atomic<std::int64_t> failed{0};
  for (auto _ : state) {
    std::latch done(callers);
    for (std::int64_t c = 0; c < callers; ++c) {
      const unsigned shard = static_cast<unsigned>(c % 2);
      io::spawn(b.shards[shard].executor(), [&, c, shard]() -> awaitable<void> {
        for (std::int64_t i = 0; i < per_caller; ++i) {
          const auto start = std::chrono::steady_clock::now();
          const bool ok = co_await op(c, i);
          const auto took = std::chrono::steady_clock::now() - start;
          latency[shard].record(std::chrono::duration_cast<std::chrono::microseconds>(took).count());
          if (!ok) failed.fetch_add(1);
        }
        done.count_down();
      });
    }
    done.wait();
  }
  failures = failed.load();
  base::histogram all(highest_latency_us);
  for (const auto& h : latency) MAGNETAR_ASSERT(all.merge(h), "same layout");
  state.SetItemsProcessed(state.iterations() * callers * per_caller);
  state.counters["p50_us"] = static_cast<double>(all.value_at_percentile(50));
  state.counters["p99_us"] = static_cast<double>(all.value_at_percentile(99));
  state.counters["failures"] = static_cast<double>(failures);
}

void put_synced(benchmark::State& state) {
  bench_store b;
  drive(state, b, 64, [&](std::int64_t caller, std::int64_t i) -> awaitable<bool> {
    auto path = "/bench/c" + std::to_string(caller) + "/k" + std::to_string(i % 16);
    co_return static_cast<bool>(co_await b.store.put(std::move(path), value_256b, std::nullopt));
  });
}
BENCHMARK(put_synced)->ArgName("callers")->Arg(1)->Arg(4)->Arg(16)->UseRealTime();

void get_existing(benchmark::State& state) {
  bench_store b;
  constexpr int keys = 1000;
  io::block_on(b.shards[0], [&]() -> awaitable<void> {
    for (int k = 0; k < keys; ++k) {
      auto r = co_await b.store.put("/bench/k" + std::to_string(k), value_256b, std::nullopt);
      MAGNETAR_ASSERT(r, "fill: {}", r.error());
    }
  }());
  drive(state, b, 2000, [&](std::int64_t caller, std::int64_t i) -> awaitable<bool> {
    auto r = co_await b.store.get("/bench/k" + std::to_string((caller * 7919 + i) % keys));
    co_return r&& r.value().has_value();
  });
}
BENCHMARK(get_existing)->ArgName("callers")->Arg(1)->Arg(4)->Arg(16)->UseRealTime();

}  // namespace
}  // namespace magnetar::meta
