// Journal append throughput and latency with group commit, on the real disk.
//
//   journal_pipelined/<payload bytes>/<writers>/<in flight per writer>
//     writers (threads) keep up to N entries each in flight, as a broker's
//     managed ledgers do; entries/s, MB/s and the add latency percentiles.
//   journal_paced/<payload bytes>/<entries per second>/<reuse>
//     one pacer adds entries at a fixed rate; latency counts from each entry's
//     intended time, so a stall shows up (no coordinated omission). With reuse,
//     16 MiB files and a checkpoint (reclaim) every 100 ms, as a bookie that has
//     run a while: new files come from the spares. Without, one new file, zeroed
//     ahead of the writer (the run starts once the first zero_ahead_bytes are).
//     pacer_late_*: how late the pacer itself issued its adds (its wake-ups on a
//     loaded machine); sync_time_p99: see time_weighted_percentile.
//   disk_sync_floor
//     no journal: 4 KiB writes each followed by fdatasync, back to back, over blocks
//     written before (a reused journal file). The syncs' own percentiles, which fio's
//     figures are, and the add latency that a group-commit journal with no cost of its
//     own would give: an add arriving while a sync runs waits for the rest of it and then
//     for the next. A sync that stalls the disk for milliseconds holds every add that
//     arrives meanwhile, so the adds' tail weighs stalls by their length, the syncs' p99
//     counts each once: journal_paced's p99 is read against ideal_add_p99, and the ratio
//     says how far a serial design (one sync at a time) can get on this disk.
//   disk_sync_streams/<rate>
//     two threads, each a 4 KiB write and fdatasync `rate` times a second (the second
//     half an interval after the first) on its own handle and region of one file: syncs
//     that overlap. syncs_per_s over the time the run really took; pacer_late_p99_us,
//     how far behind its schedule a sync started (the disk not keeping up).
//     slow_contested: slow syncs (over 1.5 ms) during which the other stream started a
//     sync; slow_overtaken: the share of those in which that later sync also finished.
//     Near 1, a slow sync was the request's own and another could pass it; near 0, the
//     disk stalled as a whole. The counts are small at these rates: read several runs.
#include "base/histogram.h"
#include "bookie/journal.h"
#include "io/file_system.h"
#include "io/temp_directory.h"

#include <benchmark/benchmark.h>
#include <sys/prctl.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <string>
#include <thread>
#include <vector>

namespace magnetar::bookie {
namespace {

using steady = std::chrono::steady_clock;

std::unique_ptr<journal> open_journal(const io::temp_directory& dir) {
  journal_options options;
  options.directory = dir / "journal";
  return journal::open(options).value();
}

// The sync duration that 1 - p/100 of the syncing time is spent above: an add arriving
// at a random moment meets a sync by its length, so this, not the syncs' own percentile,
// is what the adds' percentile follows.
double time_weighted_percentile(const base::histogram& h, double p) {
  double total = 0;
  h.for_each_bucket([&](std::int64_t lo, std::int64_t hi, std::int64_t n) { total += (lo + hi) / 2.0 * n; });
  double below = 0;
  double value = 0;
  h.for_each_bucket([&](std::int64_t lo, std::int64_t hi, std::int64_t n) {
    if (below >= total * p / 100) return;
    below += (lo + hi) / 2.0 * n;
    value = static_cast<double>(hi);
  });
  return value;
}

void report(benchmark::State& state, const base::histogram& latency_ns, std::int64_t entries, std::size_t payload,
            const journal& j) {
  state.SetItemsProcessed(entries);
  state.SetBytesProcessed(entries * static_cast<std::int64_t>(payload));
  state.counters["p50_us"] = latency_ns.value_at_percentile(50) / 1e3;
  state.counters["p99_us"] = latency_ns.value_at_percentile(99) / 1e3;
  state.counters["p999_us"] = latency_ns.value_at_percentile(99.9) / 1e3;
  const auto stats = j.stats();
  state.counters["entries_per_sync"] = stats.groups ? static_cast<double>(stats.records) / stats.groups : 0;
  // The disk's own fdatasync latency under these writes, for comparison with the adds'.
  const auto syncs = j.sync_latency();
  state.counters["sync_p50_us"] = syncs.value_at_percentile(50) / 1e3;
  state.counters["sync_p99_us"] = syncs.value_at_percentile(99) / 1e3;
  // A slow sync holds every add that arrives meanwhile: adds weigh the sync tail by
  // its duration, so their p99 follows the slowest syncs, not the syncs' p99.
  state.counters["sync_max_us"] = syncs.value_at_percentile(100) / 1e3;
  state.counters["sync_time_p99_us"] = time_weighted_percentile(syncs, 99) / 1e3;
}

void journal_pipelined(benchmark::State& state) {
  const auto payload_size = static_cast<std::size_t>(state.range(0));
  const auto writers = static_cast<int>(state.range(1));
  const auto window = state.range(2);
  const std::int64_t per_writer = std::max<std::int64_t>(20000, 200000 / writers);
  io::temp_directory dir("journal-bench");
  auto j = open_journal(dir);
  const std::string payload(payload_size, 'p');
  base::histogram latency_ns(60'000'000'000);  // touched only by the journal's writer thread

  std::int64_t total = 0;
  for (auto _ : state) {
    std::vector<std::thread> threads;
    for (int w = 0; w < writers; ++w) {
      threads.emplace_back([&, w] {
        std::atomic<std::int64_t> in_flight{0};
        for (std::int64_t i = 0; i < per_writer; ++i) {
          while (in_flight.load(std::memory_order_acquire) >= window) std::this_thread::yield();
          in_flight.fetch_add(1, std::memory_order_acq_rel);
          const journal_record r{journal_record_type::add_entry, ledger_id(w), entry_id(i), entry_id(i - 1),
                                 std::as_bytes(std::span(payload))};
          j->append(std::span(&r, 1), [&, start = steady::now()](const error* e) {
            if (e) std::abort();
            latency_ns.record((steady::now() - start).count());
            in_flight.fetch_sub(1, std::memory_order_acq_rel);
          });
        }
        while (in_flight.load(std::memory_order_acquire) > 0) std::this_thread::yield();
      });
    }
    for (auto& t : threads) t.join();
    total += per_writer * writers;
  }
  report(state, latency_ns, total, payload_size, *j);
}
BENCHMARK(journal_pipelined)
    ->ArgNames({"bytes", "writers", "inflight"})
    ->Args({100, 1, 1})
    ->Args({100, 1, 1000})
    ->Args({100, 30, 1})
    ->Args({100, 30, 100})
    ->Args({1024, 1, 1})
    ->Args({1024, 1, 1000})
    ->Args({1024, 30, 1})
    ->Args({1024, 30, 100})
    ->Iterations(1)
    ->UseRealTime()
    ->Unit(benchmark::kMillisecond);

// Fills and reclaims files until the journal's directory holds max_spare_files spares,
// which the journal opened next there takes up.
void make_spares(const journal_options& options) {
  auto opened = journal::open(options).value();
  auto& j = *opened;
  const auto file_bytes = options.max_file_bytes;
  const std::string payload(64 << 10, 's');
  const journal_record r{journal_record_type::add_entry, ledger_id(99), entry_id(0), entry_id(-1),
                         std::as_bytes(std::span(payload))};
  const auto records = static_cast<std::int64_t>((journal_options{}.max_spare_files + 1) * file_bytes / payload.size());
  std::atomic<std::int64_t> done{0};
  for (std::int64_t i = 0; i < records; ++i) {
    j.append(std::span(&r, 1), [&](const error* e) {
      if (e) std::abort();
      done.fetch_add(1, std::memory_order_release);
    });
  }
  while (done.load(std::memory_order_acquire) < records) std::this_thread::yield();
  if (!j.reclaim(j.checkpoint_mark())) std::abort();
}

void journal_paced(benchmark::State& state) {
  const auto payload_size = static_cast<std::size_t>(state.range(0));
  const auto rate = state.range(1);
  const bool reuse = state.range(2) != 0;
  const auto seconds = 3;
  io::temp_directory dir("journal-bench");
  journal_options options;
  options.directory = dir / "journal";
  if (reuse) options.max_file_bytes = 16 << 20;
  if (reuse) make_spares(options);
  auto j = journal::open(options).value();
  // A new file as a bookie meets it once started: its first blocks already zeroed ahead.
  while (!reuse && j->stats().bytes_zeroed_ahead < options.zero_ahead_bytes) {
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  const std::string payload(payload_size, 'p');
  base::histogram latency_ns(60'000'000'000);
  base::histogram late_ns(60'000'000'000);
  std::atomic<std::int64_t> done{0};
  const auto interval = std::chrono::nanoseconds(1'000'000'000 / rate);
  ::prctl(PR_SET_TIMERSLACK, 1UL, 0UL, 0UL, 0UL);

  std::int64_t total = 0;
  for (auto _ : state) {
    const auto start = steady::now();
    const std::int64_t count = rate * seconds;
    // Checkpoints on a thread of their own, as the bookie's.
    std::atomic<bool> paced{false};
    std::thread checkpoints;
    if (reuse) {
      checkpoints = std::thread([&] {
        while (!paced.load()) {
          if (!j->reclaim(j->checkpoint_mark())) std::abort();
          std::this_thread::sleep_for(std::chrono::milliseconds(100));
        }
      });
    }
    for (std::int64_t i = 0; i < count; ++i) {
      const auto intended = start + i * interval;
      // Sleeping, not spinning: on 2 cores a spinning pacer takes the CPU that the
      // writer's wake-ups and the kernel's I/O completions need (timer slack is cut to
      // the minimum, so a sleep ends within microseconds of the intended time).
      std::this_thread::sleep_until(intended);
      late_ns.record((steady::now() - intended).count());
      const journal_record r{journal_record_type::add_entry, ledger_id(1), entry_id(i), entry_id(i - 1),
                             std::as_bytes(std::span(payload))};
      j->append(std::span(&r, 1), [&, intended](const error* e) {
        if (e) std::abort();
        latency_ns.record((steady::now() - intended).count());
        done.fetch_add(1, std::memory_order_release);
      });
    }
    while (done.load(std::memory_order_acquire) < total + count) std::this_thread::yield();
    paced.store(true);
    if (checkpoints.joinable()) checkpoints.join();
    total += count;
  }
  report(state, latency_ns, total, payload_size, *j);
  state.counters["pacer_late_p99_us"] = late_ns.value_at_percentile(99) / 1e3;
  state.counters["pacer_late_p999_us"] = late_ns.value_at_percentile(99.9) / 1e3;
  state.counters["pacer_late_max_us"] = late_ns.value_at_percentile(100) / 1e3;
  state.counters["files_reused"] = static_cast<double>(j->stats().files_reused);
  state.counters["zeroed_ahead_MiB"] = static_cast<double>(j->stats().bytes_zeroed_ahead) / (1 << 20);
}
BENCHMARK(journal_paced)
    ->ArgNames({"bytes", "rate", "reuse"})
    ->ArgsProduct({{100, 1024}, {30000}, {0, 1}})
    ->Iterations(1)
    ->UseRealTime()
    ->Unit(benchmark::kMillisecond);

void disk_sync_floor(benchmark::State& state) {
  constexpr std::size_t block = 4096;
  constexpr std::uint64_t region = 256ull << 20;  // more than 3 s of syncs write
  const auto seconds = std::chrono::seconds(3);
  io::temp_directory dir("sync-floor");
  auto& fs = io::posix_file_system();
  auto f = fs.open(dir / "f", io::open_mode::create_new).value();
  // Blocks written and synced before: each sync then carries data only, as in a reused file.
  const std::vector<std::byte> zeros(4 << 20);
  for (std::uint64_t at = 0; at < region; at += zeros.size()) {
    if (!f->write_at(at, zeros)) std::abort();
  }
  if (!f->sync()) std::abort();
  const std::vector<std::byte> data(block, std::byte{'s'});
  struct span {
    steady::time_point start, end;
  };
  std::vector<span> syncs;
  syncs.reserve(100'000);  // no reallocation between two syncs
  for (auto _ : state) {
    const auto until = steady::now() + seconds;
    for (std::uint64_t at = 0; steady::now() < until && at + block <= region; at += block) {
      if (!f->write_at(at, data)) std::abort();
      const auto start = steady::now();
      if (!f->sync()) std::abort();
      syncs.push_back({start, steady::now()});
    }
  }
  if (syncs.size() < 2) {
    state.SkipWithError("fewer than two syncs");
    return;
  }
  const auto nanos = [](steady::duration d) { return std::chrono::duration_cast<std::chrono::nanoseconds>(d).count(); };
  base::histogram sync_ns(60'000'000'000);
  for (const auto& s : syncs) sync_ns.record(nanos(s.end - s.start));
  // Arrivals every microsecond from the first sync to the last but one: one in sync i
  // (or in the write after it) is covered by sync i + 1, which starts once i has ended.
  base::histogram add_ns(60'000'000'000);
  std::size_t i = 0;
  for (auto t = syncs.front().start; t < syncs[syncs.size() - 2].end; t += std::chrono::microseconds(1)) {
    while (i + 2 < syncs.size() && syncs[i + 1].start <= t) ++i;
    add_ns.record(nanos(syncs[i + 1].end - t));
  }
  state.counters["syncs_per_s"] = static_cast<double>(syncs.size()) / static_cast<double>(seconds.count());
  state.counters["sync_p50_us"] = sync_ns.value_at_percentile(50) / 1e3;
  state.counters["sync_p99_us"] = sync_ns.value_at_percentile(99) / 1e3;
  state.counters["sync_max_us"] = sync_ns.value_at_percentile(100) / 1e3;
  state.counters["ideal_add_p50_us"] = add_ns.value_at_percentile(50) / 1e3;
  state.counters["ideal_add_p99_us"] = add_ns.value_at_percentile(99) / 1e3;
  state.counters["ideal_add_p99_over_sync_p99"] =
      static_cast<double>(add_ns.value_at_percentile(99)) / static_cast<double>(sync_ns.value_at_percentile(99));
}
BENCHMARK(disk_sync_floor)->Iterations(1)->UseRealTime()->Unit(benchmark::kMillisecond);

void disk_sync_streams(benchmark::State& state) {
  constexpr std::size_t block = 4096;
  constexpr std::uint64_t region = 64ull << 20;  // per stream
  const auto rate = state.range(0);
  const auto seconds = std::chrono::seconds(5);
  io::temp_directory dir("sync-streams");
  auto& fs = io::posix_file_system();
  {
    auto f = fs.open(dir / "f", io::open_mode::create_new).value();
    const std::vector<std::byte> zeros(4 << 20);
    for (std::uint64_t at = 0; at < 2 * region; at += zeros.size()) {
      if (!f->write_at(at, zeros)) std::abort();
    }
    if (!f->sync()) std::abort();
  }
  struct span {
    steady::time_point start, end;
  };
  std::vector<span> streams[2];
  base::histogram late_ns[2]{base::histogram(60'000'000'000), base::histogram(60'000'000'000)};
  ::prctl(PR_SET_TIMERSLACK, 1UL, 0UL, 0UL, 0UL);
  steady::time_point begin, finished;
  for (auto _ : state) {
    begin = steady::now();
    std::vector<std::thread> threads;
    for (int s = 0; s < 2; ++s) {
      threads.emplace_back([&, s] {
        auto f = fs.open(dir / "f", io::open_mode::read_write).value();
        const std::vector<std::byte> data(block, std::byte{'s'});
        const auto interval = std::chrono::nanoseconds(1'000'000'000 / rate);
        // Interleaved: the second stream's syncs start between the first's.
        const auto first = begin + s * interval / 2;
        for (std::int64_t i = 0; steady::now() < begin + seconds; ++i) {
          const auto due = first + i * interval;
          std::this_thread::sleep_until(due);
          const auto offset = static_cast<std::uint64_t>(s) * region + (static_cast<std::uint64_t>(i) * block) % region;
          if (!f->write_at(offset, data)) std::abort();
          const auto start = steady::now();
          late_ns[s].record(std::chrono::duration_cast<std::chrono::nanoseconds>(start - due).count());
          if (!f->sync()) std::abort();
          streams[s].push_back({start, steady::now()});
        }
      });
    }
    for (auto& t : threads) t.join();
    finished = steady::now();
  }
  const auto slow = std::chrono::microseconds(1500);
  std::int64_t contested = 0, overtaken = 0;
  for (int s = 0; s < 2; ++s) {
    const auto& other = streams[1 - s];
    for (const auto& x : streams[s]) {
      if (x.end - x.start <= slow) continue;
      const auto later = std::find_if(other.begin(), other.end(), [&](const span& y) { return y.start > x.start; });
      if (later == other.end() || later->start >= x.end) continue;  // the other stream started none meanwhile
      ++contested;
      if (later->end < x.end) ++overtaken;
    }
  }
  base::histogram sync_ns(60'000'000'000);
  for (const auto& stream : streams) {
    for (const auto& x : stream)
      sync_ns.record(std::chrono::duration_cast<std::chrono::nanoseconds>(x.end - x.start).count());
  }
  const double elapsed = std::chrono::duration<double>(finished - begin).count();
  state.counters["syncs_per_s"] = static_cast<double>(sync_ns.total_count()) / elapsed;
  state.counters["sync_p50_us"] = sync_ns.value_at_percentile(50) / 1e3;
  state.counters["sync_p99_us"] = sync_ns.value_at_percentile(99) / 1e3;
  state.counters["pacer_late_p99_us"] =
      std::max(late_ns[0].value_at_percentile(99), late_ns[1].value_at_percentile(99)) / 1e3;
  state.counters["slow_contested"] = static_cast<double>(contested);
  state.counters["slow_overtaken"] = contested ? static_cast<double>(overtaken) / static_cast<double>(contested) : 0;
}
BENCHMARK(disk_sync_streams)
    ->ArgName("rate")
    ->Arg(600)
    ->Arg(2000)
    ->Arg(3500)
    ->Iterations(1)
    ->UseRealTime()
    ->Unit(benchmark::kMillisecond);

}  // namespace
}  // namespace magnetar::bookie
