// Ledger adds: what a managed ledger sees.
//   ledger_add/<payload bytes>/<adds in flight>: through the embedded bookie
//   ledger_add_replicated/<bytes>/<in flight>/<E>/<W>/<A>: three bookies of this
//     process, each behind its bookie_server on 127.0.0.1, reached over TCP
// cpu_us_per_entry is the whole process's CPU (client and every bookie) per entry.
#include "base/histogram.h"
#include "bookie/bookie_server.h"
#include "io/run_on.h"
#include "ledger/remote_bookie_client.h"
#include "ledger_test_cluster.h"

#include <sys/resource.h>

#include <benchmark/benchmark.h>

namespace magnetar::ledger {
namespace {

double process_cpu_seconds() {
  rusage usage{};
  getrusage(RUSAGE_SELF, &usage);
  return static_cast<double>(usage.ru_utime.tv_sec + usage.ru_stime.tv_sec) +
         static_cast<double>(usage.ru_utime.tv_usec + usage.ru_stime.tv_usec) / 1e6;
}

// `in_flight` workers, each adding one entry at a time, on `writer`.
void drive_adds(benchmark::State& state, testing::test_cluster& cluster, ledger_writer& writer) {
  const auto payload_size = static_cast<std::size_t>(state.range(0));
  const auto in_flight = state.range(1);
  const std::string text(payload_size, 'p');
  const auto payload = wire::shared_bytes::copy_of(std::as_bytes(std::span(text)));
  base::histogram latency_ns(60'000'000'000);
  const std::int64_t per_worker = std::max<std::int64_t>(200, 100'000 / in_flight);
  std::int64_t total = 0;
  const double cpu_before = process_cpu_seconds();
  for (auto _ : state) {
    cluster.run([&]() -> awaitable<void> {
      auto executor = co_await asio::this_coro::executor;
      io::oneshot_signal done(executor);
      std::int64_t finished = 0;
      for (std::int64_t w = 0; w < in_flight; ++w) {
        io::spawn(executor, [&]() -> awaitable<void> {
          for (std::int64_t i = 0; i < per_worker; ++i) {
            const auto t0 = std::chrono::steady_clock::now();
            if (!co_await writer.add(payload)) std::abort();
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
  state.counters["cpu_us_per_entry"] = (process_cpu_seconds() - cpu_before) * 1e6 / static_cast<double>(total);
}

void ledger_add(benchmark::State& state) {
  testing::test_cluster cluster(1, /*faults=*/false);
  auto writer = cluster.run(cluster.client->create({})).value();
  drive_adds(state, cluster, *writer);
}

void ledger_add_replicated(benchmark::State& state) {
  testing::test_cluster cluster(3, /*faults=*/false);
  std::vector<std::unique_ptr<bookie::bookie_server>> servers;
  static_bookie_directory directory;
  for (int i = 0; i < 3; ++i) {
    servers.push_back(
        std::make_unique<bookie::bookie_server>(cluster.bookie_at(i), cluster.shards.set(),
                                                bookie::bookie_server_options{.bind_address = "127.0.0.1", .port = 0}));
    if (!servers.back()->start()) std::abort();
    const auto address = fmt::format("127.0.0.1:{}", servers.back()->port());
    directory.add(address, std::make_unique<remote_bookie_client>(cluster.shards[1].executor(),
                                                                  remote_bookie_options{.address = address}));
  }
  {
    ledger_client client(*cluster.store, directory, cluster.clock);
    auto writer = cluster
                      .run(client.create({.ensemble_size = static_cast<int>(state.range(2)),
                                          .write_quorum = static_cast<int>(state.range(3)),
                                          .ack_quorum = static_cast<int>(state.range(4))}))
                      .value();
    drive_adds(state, cluster, *writer);
  }
  for (auto& s : servers) s->stop();
}

BENCHMARK(ledger_add)
    ->ArgNames({"bytes", "inflight"})
    ->Args({100, 1})
    ->Args({100, 1000})
    ->Args({1024, 1000})
    ->Iterations(1)
    ->UseRealTime()
    ->Unit(benchmark::kMillisecond);
BENCHMARK(ledger_add_replicated)
    ->ArgNames({"bytes", "inflight", "E", "W", "A"})
    ->Args({100, 1000, 3, 3, 2})
    ->Args({1024, 1000, 3, 3, 2})
    ->Args({100, 1000, 2, 2, 2})
    ->Args({1024, 1000, 2, 2, 2})
    ->Args({100, 1, 3, 3, 2})
    ->Iterations(1)
    ->UseRealTime()
    ->Unit(benchmark::kMillisecond);

}  // namespace
}  // namespace magnetar::ledger
