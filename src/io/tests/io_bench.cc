// Cost of the io primitives that sit on the hot path: a cross-shard call
// (one hop and back) and a blocking-pool round trip.
#include "io/block_on.h"
#include "io/blocking_pool.h"
#include "io/oneshot_signal.h"
#include "io/run_on.h"
#include "io/running_shards.h"

#include <benchmark/benchmark.h>

namespace magnetar::io {
namespace {

void cross_shard_call(benchmark::State& state) {
  running_shards shards(2);
  const auto batch = state.range(0);
  for (auto _ : state) {
    block_on(shards[0], [&]() -> awaitable<void> {
      for (int64_t i = 0; i < batch; ++i) {
        benchmark::DoNotOptimize(co_await run_on(shards[1], [] { return 1; }));
      }
    }());
  }
  state.SetItemsProcessed(state.iterations() * batch);
}
BENCHMARK(cross_shard_call)->Arg(1000)->UseRealTime();

// Many calls in flight at once, as a busy broker has: throughput rather than
// the wake-up latency of an idle shard.
void cross_shard_calls_pipelined(benchmark::State& state) {
  running_shards shards(2);
  const auto in_flight = state.range(0);
  const int64_t per_caller = 1000;
  for (auto _ : state) {
    block_on(shards[0], [&]() -> awaitable<void> {
      auto executor = co_await asio::this_coro::executor;
      int64_t finished = 0;
      oneshot_signal all_done(executor);
      for (int64_t c = 0; c < in_flight; ++c) {
        spawn(executor, [&]() -> awaitable<void> {
          for (int64_t i = 0; i < per_caller; ++i) {
            benchmark::DoNotOptimize(co_await run_on(shards[1], [] { return 1; }));
          }
          if (++finished == in_flight) all_done.fire();
        });
      }
      co_await all_done.wait();
    }());
  }
  state.SetItemsProcessed(state.iterations() * in_flight * per_caller);
}
BENCHMARK(cross_shard_calls_pipelined)->Arg(16)->Arg(128)->UseRealTime();

void same_shard_call(benchmark::State& state) {
  running_shards shards(1);
  const auto batch = state.range(0);
  for (auto _ : state) {
    block_on(shards[0], [&]() -> awaitable<void> {
      for (int64_t i = 0; i < batch; ++i) {
        benchmark::DoNotOptimize(co_await run_on(shards[0], [] { return 1; }));
      }
    }());
  }
  state.SetItemsProcessed(state.iterations() * batch);
}
BENCHMARK(same_shard_call)->Arg(1000)->UseRealTime();

void blocking_pool_round_trip(benchmark::State& state) {
  running_shards shards(1);
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
}
BENCHMARK(blocking_pool_round_trip)->Arg(1000)->UseRealTime();

}  // namespace
}  // namespace magnetar::io
