// Cost of the io primitives that sit on the hot path: a cross-shard call
// (one hop and back) and a blocking-pool round trip.
#include "io/blocking_pool.h"
#include "io/block_on.h"
#include "io/run_on.h"
#include "io/shard.h"

#include <benchmark/benchmark.h>

namespace magnetar::io {
namespace {

void cross_shard_call(benchmark::State& state) {
  shard_set shards(2);
  shards.start();
  const auto batch = state.range(0);
  for (auto _ : state) {
    block_on(shards[0], [&]() -> awaitable<void> {
      for (int64_t i = 0; i < batch; ++i) {
        benchmark::DoNotOptimize(co_await run_on(shards[1], [] { return 1; }));
      }
    }());
  }
  state.SetItemsProcessed(state.iterations() * batch);
  shards.stop();
}
BENCHMARK(cross_shard_call)->Arg(1000)->UseRealTime();

void same_shard_call(benchmark::State& state) {
  shard_set shards(1);
  shards.start();
  const auto batch = state.range(0);
  for (auto _ : state) {
    block_on(shards[0], [&]() -> awaitable<void> {
      for (int64_t i = 0; i < batch; ++i) {
        benchmark::DoNotOptimize(co_await run_on(shards[0], [] { return 1; }));
      }
    }());
  }
  state.SetItemsProcessed(state.iterations() * batch);
  shards.stop();
}
BENCHMARK(same_shard_call)->Arg(1000)->UseRealTime();

void blocking_pool_round_trip(benchmark::State& state) {
  shard_set shards(1);
  shards.start();
  blocking_pool pool(2);
  const auto batch = state.range(0);
  for (auto _ : state) {
    block_on(shards[0], [&]() -> awaitable<void> {
      for (int64_t i = 0; i < batch; ++i) {
        benchmark::DoNotOptimize(co_await pool.run([]() -> result<int> { return 1; }));
      }
    }());
  }
  state.SetItemsProcessed(state.iterations() * batch);
  shards.stop();
}
BENCHMARK(blocking_pool_round_trip)->Arg(1000)->UseRealTime();

}  // namespace
}  // namespace magnetar::io
