// Ledger adds through the embedded bookie: what a managed ledger sees.
//   ledger_add/<payload bytes>/<adds in flight>
#include "base/histogram.h"
#include "io/run_on.h"
#include "ledger_test_cluster.h"

#include <benchmark/benchmark.h>

namespace magnetar::ledger {
namespace {

void ledger_add(benchmark::State& state) {
  const auto payload_size = static_cast<std::size_t>(state.range(0));
  const auto in_flight = state.range(1);
  testing::test_cluster cluster(1, /*faults=*/false);
  auto writer = cluster.run(cluster.client->create({})).value();
  const std::string text(payload_size, 'p');
  const auto payload = wire::shared_bytes::copy_of(std::as_bytes(std::span(text)));
  base::histogram latency_ns(60'000'000'000);
  const std::int64_t per_worker = std::max<std::int64_t>(200, 100'000 / in_flight);
  std::int64_t total = 0;
  for (auto _ : state) {
    // `in_flight` workers, each adding one entry at a time: that many adds
    // are in flight at once.
    cluster.run([&]() -> awaitable<void> {
      auto executor = co_await asio::this_coro::executor;
      io::oneshot_signal done(executor);
      std::int64_t finished = 0;
      for (std::int64_t w = 0; w < in_flight; ++w) {
        io::spawn(executor, [&]() -> awaitable<void> {
          for (std::int64_t i = 0; i < per_worker; ++i) {
            const auto t0 = std::chrono::steady_clock::now();
            if (!co_await writer->add(payload)) std::abort();
            latency_ns.record((std::chrono::steady_clock::now() - t0).count());
          }
          if (++finished == in_flight) done.fire();
        });
      }
      co_await done.wait();
    }());
    total += per_worker * in_flight;
  }
  state.SetItemsProcessed(total);
  state.SetBytesProcessed(total * static_cast<std::int64_t>(payload_size));
  state.counters["p50_us"] = latency_ns.value_at_percentile(50) / 1e3;
  state.counters["p99_us"] = latency_ns.value_at_percentile(99) / 1e3;
}
BENCHMARK(ledger_add)
    ->ArgNames({"bytes", "inflight"})
    ->Args({100, 1})
    ->Args({100, 1000})
    ->Args({1024, 1000})
    ->Iterations(1)
    ->UseRealTime()
    ->Unit(benchmark::kMillisecond);

}  // namespace
}  // namespace magnetar::ledger
