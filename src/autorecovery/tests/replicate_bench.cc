// Re-replication speed: a closed ledger of <MiB> at E/W/A 3/3/3 in <entry bytes>
// entries on bookies of this process, each behind its bookie_server on
// 127.0.0.1 and reached over TCP; one of its bookies is lost (unregistered),
// and replicate_ledger copies its share to the fourth, on a thread of its own
// as a replication worker in another process would. MB_per_s is the
// ledger's bytes over the time replicate_ledger took (reads from a surviving
// bookie, recovery adds to the new one, the metadata write).
#include "autorecovery/replicate_ledger.h"
#include "bookie/bookie_server.h"
#include "io/run_on.h"
#include "ledger/remote_bookie_client.h"
#include "ledger/tests/ledger_test_cluster.h"

#include <benchmark/benchmark.h>

namespace magnetar::autorecovery {
namespace {

void replicate_ledger_bench(benchmark::State& state) {
  const auto ledger_bytes = static_cast<std::size_t>(state.range(0)) << 20;
  const auto entry_bytes = static_cast<std::size_t>(state.range(1));
  for (auto _ : state) {
    state.PauseTiming();
    ledger::testing::test_cluster cluster(4, /*faults=*/false);
    io::running_shards worker(1);  // outlives the directory, whose connections it holds
    std::vector<std::unique_ptr<bookie::bookie_server>> servers;
    ledger::static_bookie_directory directory;
    for (int i = 0; i < 4; ++i) {
      servers.push_back(std::make_unique<bookie::bookie_server>(
          cluster.bookie_at(i), cluster.shards.set(),
          bookie::bookie_server_options{.bind_address = "127.0.0.1", .port = 0}));
      if (!servers.back()->start()) std::abort();
      const auto address = fmt::format("127.0.0.1:{}", servers.back()->port());
      directory.add(address, std::make_unique<ledger::remote_bookie_client>(
                                 cluster.shards[1].executor(), ledger::remote_bookie_options{.address = address}));
      if (!cluster.run(cluster.store->put("/ledgers/available/" + address, "{}", -1))) std::abort();
    }
    ledger::ledger_client client(*cluster.store, directory, cluster.clock);
    auto writer = cluster.run(client.create({.ensemble_size = 3, .write_quorum = 3, .ack_quorum = 3})).value();
    const std::string text(entry_bytes, 'r');
    const auto payload = wire::shared_bytes::copy_of(std::as_bytes(std::span(text)));
    const auto entries = static_cast<std::int64_t>(ledger_bytes / entry_bytes);
    cluster.run([&]() -> awaitable<void> {  // 256 adds in flight
      auto executor = co_await asio::this_coro::executor;
      io::oneshot_signal done(executor);
      std::int64_t next = 0, finished = 0;
      for (int w = 0; w < 256; ++w) {
        io::spawn(executor, [&]() -> awaitable<void> {
          while (next < entries) {
            ++next;
            if (!co_await writer->add(payload)) std::abort();
          }
          if (++finished == 256) done.fire();
        });
      }
      co_await done.wait();
    }());
    if (!cluster.run(writer->close())) std::abort();
    const auto lost = writer->metadata().ensembles.at(0)[0];
    if (!cluster.run(cluster.store->remove("/ledgers/available/" + lost, std::nullopt))) std::abort();
    const underreplicated_ledger listed{writer->id(), {lost}, 0};
    state.ResumeTiming();

    const auto start = std::chrono::steady_clock::now();
    auto outcome = io::block_on(worker[0], replicate_ledger(client, *cluster.store, directory, listed, 0, {}));
    const auto seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    if (!outcome || outcome.value() != replicate_outcome::done) std::abort();
    state.counters["MB_per_s"] = static_cast<double>(entries) * static_cast<double>(entry_bytes) / 1e6 / seconds;

    state.PauseTiming();
    writer.reset();
    for (auto& s : servers) s->stop();
    state.ResumeTiming();
  }
}

BENCHMARK(replicate_ledger_bench)
    ->ArgNames({"MiB", "entry_bytes"})
    ->Args({256, 16384})
    ->Args({256, 1024})
    ->Args({1024, 16384})  // the 1 GB ledger
    ->Iterations(1)
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime();

}  // namespace
}  // namespace magnetar::autorecovery
