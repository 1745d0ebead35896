// Latency and throughput of the metadata store: synced puts and gets, from
// one caller and from several concurrent callers spread over two shards, on
// the embedded store (backend 0) and on a ZooKeeper server that the benchmark
// starts (backend 1; Debian's zookeeper package, data in the temp dir).
// Per-operation latency percentiles are reported as counters (us). The data
// lives under the system temp dir: on a tmpfs the sync costs nothing and put
// figures mean little.
#include "base/histogram.h"
#include "io/run_on.h"
#include "io/running_shards.h"
#include "io/temp_directory.h"
#include "meta/rocksdb_store.h"
#include "meta/zookeeper_store.h"
#include "testing/zookeeper_server.h"

#include <benchmark/benchmark.h>

#include <chrono>
#include <latch>
#include <string>

namespace magnetar::meta {
namespace {

constexpr std::int64_t highest_latency_us = 10'000'000;
const std::string value_256b(256, 'm');

// One ZooKeeper server for every benchmark of the run (a JVM takes seconds to start).
const std::string& zookeeper_address() {
  static io::temp_directory dir{"magnetar-meta-bench-zk"};
  static testing::zookeeper_server server(dir.path());
  static const std::string address = [] {
    std::string why;
    MAGNETAR_ASSERT(server.start(&why), "ZooKeeper: {}", why);
    return server.address();
  }();
  return address;
}

class bench_store {
 public:
  explicit bench_store(bool zookeeper) {
    static int next_chroot = 0;
    if (zookeeper) {
      store = std::make_unique<zookeeper_store>(zookeeper_store::options{
          .servers = zookeeper_address(), .chroot = "/bench-" + std::to_string(next_chroot++)});
    } else {
      store = std::make_unique<rocksdb_store>(rocksdb_store::options{.directory = dir / "meta"});
    }
    auto started = io::block_on(shards[0], store->start());
    MAGNETAR_ASSERT(started, "start: {}", started.error());
  }
  ~bench_store() { io::block_on(shards[0], store->stop()); }

  io::temp_directory dir{"magnetar-meta-bench"};
  io::running_shards shards{2};
  std::unique_ptr<meta::store> store;
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
  bench_store b(state.range(1) == 1);
  drive(state, b, 64, [&](std::int64_t caller, std::int64_t i) -> awaitable<bool> {
    auto path = "/bench/c" + std::to_string(caller) + "/k" + std::to_string(i % 16);
    co_return static_cast<bool>(co_await b.store->put(std::move(path), value_256b, std::nullopt));
  });
}
BENCHMARK(put_synced)->ArgNames({"callers", "zookeeper"})->ArgsProduct({{1, 4, 16}, {0, 1}})->UseRealTime();

void get_existing(benchmark::State& state) {
  bench_store b(state.range(1) == 1);
  constexpr int keys = 1000;
  io::block_on(b.shards[0], [&]() -> awaitable<void> {
    for (int k = 0; k < keys; ++k) {
      auto r = co_await b.store->put("/bench/k" + std::to_string(k), value_256b, std::nullopt);
      MAGNETAR_ASSERT(r, "fill: {}", r.error());
    }
  }());
  drive(state, b, 2000, [&](std::int64_t caller, std::int64_t i) -> awaitable<bool> {
    auto r = co_await b.store->get("/bench/k" + std::to_string((caller * 7919 + i) % keys));
    co_return r&& r.value().has_value();
  });
}
BENCHMARK(get_existing)->ArgNames({"callers", "zookeeper"})->ArgsProduct({{1, 4, 16}, {0, 1}})->UseRealTime();

}  // namespace
}  // namespace magnetar::meta
