// Ledger adds: what a managed ledger sees.
//   ledger_add/<payload bytes>/<adds in flight>: through the embedded bookie
//   ledger_add_replicated/<bytes>/<in flight>/<E>/<W>/<A>: three bookies of this
//     process, each on a shard of its own behind its bookie_server on 127.0.0.1,
//     reached over TCP
//   ledger_add_replicated_tls/...: the same over mutual TLS (bookkeeperTLS*)
//   ledger_add_paced/<bytes>/<adds a second>/<E>/<W>/<A>: adds started at a
//     steady rate for 5 s (E = 0: the embedded bookie), latency counted from
//     each add's planned start, so a stall shows in every add it delays
//     (ledger_add_paced_tls: over mutual TLS)
//   entry_header/<bytes>: what putting the entry header before a payload
//     costs a writer's add (a copy of the payload)
// The writer runs on a thread of its own. Counters:
//   cpu_us_per_entry: the whole process's CPU (writer and every bookie) per entry;
//   writer_cpu_us_per_entry: the writer's thread alone, what a broker whose
//     bookies run elsewhere pays (for the embedded bookie, where the broker
//     runs the bookie too, compare cpu_us_per_entry).
#include "base/histogram.h"
#include "bookie/bookie_server.h"
#include "io/run_on.h"
#include "io/temp_directory.h"
#include "io/timer.h"
#include "ledger/entry_header.h"
#include "ledger/remote_bookie_client.h"
#include "ledger_test_cluster.h"
#include "tls/test_certificates.h"

#include <sys/resource.h>
#include <time.h>

#include <benchmark/benchmark.h>

namespace magnetar::ledger {
namespace {

double process_cpu_seconds() {
  rusage usage{};
  getrusage(RUSAGE_SELF, &usage);
  return static_cast<double>(usage.ru_utime.tv_sec + usage.ru_stime.tv_sec) +
         static_cast<double>(usage.ru_utime.tv_usec + usage.ru_stime.tv_usec) / 1e6;
}

double thread_cpu_seconds() {
  timespec now{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &now);
  return static_cast<double>(now.tv_sec) + static_cast<double>(now.tv_nsec) / 1e9;
}

wire::shared_bytes payload_of(benchmark::State& state) {
  return testing::bytes_of(std::string(static_cast<std::size_t>(state.range(0)), 'p'));
}

// What a run measured, turned into the benchmark's counters.
struct run_figures {
  std::int64_t entries = 0;
  double writer_cpu = 0;
  base::histogram latency_ns{60'000'000'000};

  void report(benchmark::State& state, double process_cpu) const {
    state.SetItemsProcessed(entries);
    state.SetBytesProcessed(entries * state.range(0));
    state.counters["p50_us"] = latency_ns.value_at_percentile(50) / 1e3;
    state.counters["p99_us"] = latency_ns.value_at_percentile(99) / 1e3;
    state.counters["cpu_us_per_entry"] = process_cpu * 1e6 / static_cast<double>(entries);
    state.counters["writer_cpu_us_per_entry"] = writer_cpu * 1e6 / static_cast<double>(entries);
  }
};

// `in_flight` workers, each adding one entry at a time, on the writer's thread.
awaitable<void> add_in_flight(ledger_writer& writer, wire::shared_bytes payload, std::int64_t in_flight,
                              run_figures& figures) {
  const std::int64_t per_worker = std::max<std::int64_t>(200, 100'000 / in_flight);
  const double cpu_before = thread_cpu_seconds();
  auto executor = co_await asio::this_coro::executor;
  io::oneshot_signal done(executor);
  std::int64_t finished = 0;
  for (std::int64_t w = 0; w < in_flight; ++w) {
    io::spawn(executor, [&]() -> awaitable<void> {
      for (std::int64_t i = 0; i < per_worker; ++i) {
        const auto t0 = std::chrono::steady_clock::now();
        if (!co_await writer.add(payload)) std::abort();
        figures.latency_ns.record((std::chrono::steady_clock::now() - t0).count());
      }
      if (++finished == in_flight) done.fire();
    });
  }
  co_await done.wait();
  figures.entries += per_worker * in_flight;
  figures.writer_cpu += thread_cpu_seconds() - cpu_before;
}

// Adds started at `rate` a second for `duration`, each on its own.
awaitable<void> add_paced(ledger_writer& writer, wire::shared_bytes payload, std::int64_t rate,
                          std::chrono::seconds duration, run_figures& figures) {
  const double cpu_before = thread_cpu_seconds();
  auto executor = co_await asio::this_coro::executor;
  io::oneshot_signal done(executor);
  const auto start = std::chrono::steady_clock::now();
  const auto total = rate * duration.count();
  std::int64_t started = 0;
  std::int64_t finished = 0;
  asio::steady_timer tick(executor);
  while (started < total) {
    const auto elapsed = std::chrono::steady_clock::now() - start;
    const auto due = std::min(total, static_cast<std::int64_t>(std::chrono::duration<double>(elapsed).count() * rate));
    for (; started < due; ++started) {
      const auto planned = start + std::chrono::nanoseconds(started * 1'000'000'000 / rate);
      io::spawn(executor, [&, planned]() -> awaitable<void> {
        if (!co_await writer.add(payload)) std::abort();
        figures.latency_ns.record((std::chrono::steady_clock::now() - planned).count());
        if (++finished == total) done.fire();
      });
    }
    tick.expires_after(std::chrono::microseconds(500));
    co_await tick.async_wait(asio::use_awaitable);
  }
  co_await done.wait();
  figures.entries += total;
  figures.writer_cpu += thread_cpu_seconds() - cpu_before;
}

// Three bookies of `cluster`, each behind a bookie_server, as remote bookies
// whose connections the writer's shard makes; with `tls`, over mutual TLS with
// certificates of a throwaway CA.
class served_bookies {
 public:
  served_bookies(testing::test_cluster& cluster, io::shard& writer_shard, bool tls) {
    std::optional<tls::client_settings> to_bookies;
    bookie::bookie_server_options options{.bind_address = "127.0.0.1", .port = 0};
    if (tls) {
      auto ca = tls::certificate_authority::create(_certificates.path()).value();
      const auto bookie = ca.issue("bookie", "bookie", {"127.0.0.1"}).value();
      const auto broker = ca.issue("broker", "broker", {}).value();
      options.tls = tls::server_context_source::create({.certificate_file = bookie.certificate_file,
                                                        .key_file = bookie.key_file,
                                                        .trust_certs_file = ca.certificate_file(),
                                                        .require_trusted_client_cert = true},
                                                       std::chrono::seconds(300))
                        .value();
      options.require_tls = true;
      to_bookies = tls::client_settings{.trust_certs_file = ca.certificate_file(),
                                        .certificate_file = broker.certificate_file,
                                        .key_file = broker.key_file};
    }
    for (int i = 0; i < 3; ++i) {
      _servers.push_back(
          std::make_unique<bookie::bookie_server>(cluster.bookie_at(i), cluster.bookie_shards(i), options));
      if (!_servers.back()->start()) std::abort();
      const auto address = fmt::format("127.0.0.1:{}", _servers.back()->port());
      directory.add(address,
                    std::make_unique<remote_bookie_client>(
                        writer_shard.executor(), remote_bookie_options{.address = address, .tls = to_bookies}));
    }
  }
  ~served_bookies() {
    for (auto& s : _servers) s->stop();
  }
  static_bookie_directory directory;

 private:
  io::temp_directory _certificates{"ledger-bench-tls"};
  std::vector<std::unique_ptr<bookie::bookie_server>> _servers;
};

ledger_config quorums_of(benchmark::State& state) {
  return {.ensemble_size = static_cast<int>(state.range(2)),
          .write_quorum = static_cast<int>(state.range(3)),
          .ack_quorum = static_cast<int>(state.range(4))};
}

enum class bookies { embedded, served, served_over_tls };

// Runs `drive` against a writer on a thread of its own: the embedded bookie, or three
// served bookies.
template <class Drive>
void with_writer(benchmark::State& state, bookies where, Drive drive) {
  const bool replicated = where != bookies::embedded;
  testing::test_cluster cluster(replicated ? 3 : 1, /*faults=*/false, /*shard_per_bookie=*/replicated);
  io::running_shards writer_shard(1);
  std::unique_ptr<served_bookies> served;
  if (replicated)
    served = std::make_unique<served_bookies>(cluster, writer_shard[0], where == bookies::served_over_tls);
  ledger_client client(*cluster.store, replicated ? served->directory : *cluster.directory, cluster.clock);
  run_figures figures;
  const double cpu_before = process_cpu_seconds();
  for (auto _ : state) {
    io::block_on(writer_shard[0], [&]() -> awaitable<void> {
      auto writer = co_await client.create(replicated ? quorums_of(state) : ledger_config{});
      if (!writer) std::abort();
      co_await drive(*writer.value(), figures);
      co_await writer.value()->close();
    }());
  }
  figures.report(state, process_cpu_seconds() - cpu_before);
}

void ledger_add(benchmark::State& state) {
  with_writer(state, bookies::embedded, [&](ledger_writer& writer, run_figures& figures) {
    return add_in_flight(writer, payload_of(state), state.range(1), figures);
  });
}

void ledger_add_replicated(benchmark::State& state) {
  with_writer(state, bookies::served, [&](ledger_writer& writer, run_figures& figures) {
    return add_in_flight(writer, payload_of(state), state.range(1), figures);
  });
}

void ledger_add_replicated_tls(benchmark::State& state) {
  with_writer(state, bookies::served_over_tls, [&](ledger_writer& writer, run_figures& figures) {
    return add_in_flight(writer, payload_of(state), state.range(1), figures);
  });
}

void ledger_add_paced(benchmark::State& state) {
  with_writer(state, state.range(2) > 0 ? bookies::served : bookies::embedded,
              [&](ledger_writer& writer, run_figures& figures) {
                return add_paced(writer, payload_of(state), state.range(1), std::chrono::seconds(5), figures);
              });
}

void ledger_add_paced_tls(benchmark::State& state) {
  with_writer(state, bookies::served_over_tls, [&](ledger_writer& writer, run_figures& figures) {
    return add_paced(writer, payload_of(state), state.range(1), std::chrono::seconds(5), figures);
  });
}

void entry_header(benchmark::State& state) {
  const auto payload = wire::shared_bytes::copy_of(std::vector<std::byte>(static_cast<std::size_t>(state.range(0))));
  std::uint64_t length = 0;
  for (auto _ : state) {
    length += payload.size();
    benchmark::DoNotOptimize(with_entry_header(length, payload));
  }
}

BENCHMARK(entry_header)->ArgNames({"bytes"})->Arg(100)->Arg(1024)->Arg(1 << 20);
BENCHMARK(ledger_add)
    ->ArgNames({"bytes", "inflight"})
    ->Args({100, 1})
    ->Args({100, 1000})
    ->Args({1024, 1000})
    ->Args({16384, 256})  // the ceiling of a re-replication's writes to one bookie
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
BENCHMARK(ledger_add_replicated_tls)
    ->ArgNames({"bytes", "inflight", "E", "W", "A"})
    ->Args({100, 1000, 3, 3, 2})
    ->Args({1024, 1000, 3, 3, 2})
    ->Args({100, 1, 3, 3, 2})
    ->Iterations(1)
    ->UseRealTime()
    ->Unit(benchmark::kMillisecond);
BENCHMARK(ledger_add_paced)
    ->ArgNames({"bytes", "rate", "E", "W", "A"})
    ->Args({100, 30'000, 0, 0, 0})
    ->Args({100, 30'000, 3, 3, 2})
    ->Args({100, 30'000, 2, 2, 2})
    ->Iterations(1)
    ->UseRealTime()
    ->Unit(benchmark::kMillisecond);
BENCHMARK(ledger_add_paced_tls)
    ->ArgNames({"bytes", "rate", "E", "W", "A"})
    ->Args({100, 30'000, 3, 3, 2})
    ->Iterations(1)
    ->UseRealTime()
    ->Unit(benchmark::kMillisecond);

}  // namespace
}  // namespace magnetar::ledger
