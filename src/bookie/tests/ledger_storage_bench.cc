// Throughput of the ledger storage: add + flush at 100 B and 1 KiB entries,
// reads from the write cache and from entry logs (page cache warm), and the
// rate at which garbage collection compacts a mostly deleted log.
// The storage lives under the system temp dir on the real file system: on a
// tmpfs a sync costs nothing and the flush figures are upper bounds.
#include "bookie/ledger_storage.h"
#include "io/temp_directory.h"

#include <benchmark/benchmark.h>

#include <chrono>
#include <string>
#include <vector>

namespace magnetar::bookie {
namespace {

constexpr int ledgers = 8;  // adds interleave ledgers, as a bookie's do

std::unique_ptr<ledger_storage> open_storage(const io::temp_directory& dir, std::uint64_t max_log_bytes = 512 << 20) {
  auto opened = ledger_storage::open({.directory = dir / "storage", .entry_log_max_bytes = max_log_bytes});
  MAGNETAR_ASSERT(opened, "open: {}", opened.error());
  return std::move(opened).value();
}

wire::shared_bytes payload_of(std::size_t size) {
  std::vector<std::byte> bytes(size, std::byte{'m'});
  return wire::shared_bytes::copy_of(bytes);
}

void check(const result<void>& r) { MAGNETAR_ASSERT(r, "{}", r.error()); }

// Each iteration adds ~4 MiB of entries round-robin over the ledgers, then flushes.
void BM_storage_add_flush(benchmark::State& state) {
  const auto size = static_cast<std::size_t>(state.range(0));
  const std::int64_t per_flush = (4 << 20) / static_cast<std::int64_t>(size);
  io::temp_directory dir("magnetar-storage-bench");
  auto storage = open_storage(dir);
  const auto payload = payload_of(size);
  std::int64_t next = 0;
  for (auto _ : state) {
    for (std::int64_t i = 0; i < per_flush; ++i, ++next) {
      check(storage->add_entry(ledger_id(next % ledgers), entry_id(next / ledgers), payload, entry_id(-1)));
    }
    check(storage->flush());
  }
  state.SetItemsProcessed(state.iterations() * per_flush);
  state.SetBytesProcessed(state.iterations() * per_flush * static_cast<std::int64_t>(size));
}
BENCHMARK(BM_storage_add_flush)->Arg(100)->Arg(1024)->UseRealTime()->Unit(benchmark::kMillisecond);

// Reads 1 KiB entries in ledger order, from the write cache or (flushed) from the entry logs.
void read_bench(benchmark::State& state, bool flushed) {
  constexpr std::int64_t entries = 20'000;
  constexpr std::size_t size = 1024;
  io::temp_directory dir("magnetar-storage-bench");
  auto storage = open_storage(dir);
  const auto payload = payload_of(size);
  for (std::int64_t i = 0; i < entries; ++i) {
    check(storage->add_entry(ledger_id(i % ledgers), entry_id(i / ledgers), payload, entry_id(-1)));
  }
  if (flushed) check(storage->flush());
  std::int64_t next = 0;
  for (auto _ : state) {
    const std::int64_t i = next++ % entries;
    auto got = storage->read_entry(ledger_id(i / (entries / ledgers)), entry_id(i % (entries / ledgers)));
    MAGNETAR_ASSERT(got && got.value().size() == size, "read {}", i);
    benchmark::DoNotOptimize(got);
  }
  state.SetItemsProcessed(state.iterations());
  state.SetBytesProcessed(state.iterations() * static_cast<std::int64_t>(size));
}

void BM_storage_read_from_cache(benchmark::State& state) { read_bench(state, false); }
void BM_storage_read_from_entry_log(benchmark::State& state) { read_bench(state, true); }
BENCHMARK(BM_storage_read_from_cache)->UseRealTime();
BENCHMARK(BM_storage_read_from_entry_log)->UseRealTime();

// A catch-up read of a 1 GiB backlog of one ledger from the entry logs (page cache warm:
// the backlog was just written), read_range 100 entries at a time as a dispatcher reads.
// Other ledgers' entries would only split the runs at flush boundaries (a flush writes
// each ledger's entries together), so the backlog is one ledger's. With by_entry, the
// same ranges are read entry by entry (an index lookup and a pread each), as the
// interface's default read_range does, for comparison.
void BM_storage_catch_up_read(benchmark::State& state) {
  const auto size = static_cast<std::size_t>(state.range(0));
  const bool by_entry = state.range(1) != 0;
  constexpr std::int64_t backlog_bytes = 1 << 30;
  constexpr std::int64_t per_read = 100;
  const std::int64_t entries = backlog_bytes / static_cast<std::int64_t>(size);
  io::temp_directory dir("magnetar-storage-bench");
  auto storage = open_storage(dir);
  const auto payload = payload_of(size);
  const ledger_id ledger(1);
  for (std::int64_t e = 0; e < entries; ++e) check(storage->add_entry(ledger, entry_id(e), payload, entry_id(-1)));
  check(storage->flush());
  std::int64_t read = 0;
  for (auto _ : state) {
    for (std::int64_t first = 0; first < entries; first += per_read) {
      const auto last = std::min(first + per_read, entries) - 1;
      auto got = by_entry ? storage->ledger_storage::read_range(ledger, entry_id(first), entry_id(last))
                          : storage->read_range(ledger, entry_id(first), entry_id(last));
      MAGNETAR_ASSERT(got && std::ssize(got.value()) == last - first + 1, "read_range {}..{}", first, last);
      read += std::ssize(got.value());
      benchmark::DoNotOptimize(got);
    }
  }
  state.SetItemsProcessed(read);
  state.SetBytesProcessed(read * static_cast<std::int64_t>(size));
}
BENCHMARK(BM_storage_catch_up_read)
    ->ArgNames({"bytes", "by_entry"})
    ->ArgsProduct({{1024, 16 << 10, 128 << 10}, {0, 1}})
    ->UseRealTime()
    ->Unit(benchmark::kMillisecond);

// Each iteration builds an 8 MiB log that is 90% deleted ledger and 10% live
// (untimed), then times the garbage collection that compacts it.
void BM_storage_gc_compaction(benchmark::State& state) {
  constexpr std::size_t size = 1024;
  constexpr std::int64_t entries = (8 << 20) / size;
  const auto payload = payload_of(size);
  std::uint64_t log_bytes = 0;
  std::uint64_t copied = 0;
  for (auto _ : state) {
    io::temp_directory dir("magnetar-storage-bench");
    auto storage = open_storage(dir, 4 << 20);
    for (std::int64_t i = 0; i < entries; ++i) {
      const ledger_id ledger(i % 10 == 0 ? 2 : 1);
      check(storage->add_entry(ledger, entry_id(i), payload, entry_id(-1)));
    }
    check(storage->flush());
    check(storage->add_entry(ledger_id(3), entry_id(0), payload, entry_id(-1)));  // the next log
    check(storage->flush());
    check(storage->delete_ledger(ledger_id(1)));
    const auto start = std::chrono::steady_clock::now();
    auto stats = storage->collect_garbage();
    const auto took = std::chrono::steady_clock::now() - start;
    MAGNETAR_ASSERT(stats && stats.value().logs_compacted == 1, "compaction did not run");
    state.SetIterationTime(std::chrono::duration<double>(took).count());
    log_bytes += stats.value().bytes_reclaimed + stats.value().bytes_copied;
    copied += stats.value().bytes_copied;
  }
  state.SetBytesProcessed(static_cast<std::int64_t>(log_bytes));
  state.counters["copied_MB/s"] = benchmark::Counter(static_cast<double>(copied) / 1e6, benchmark::Counter::kIsRate);
}
BENCHMARK(BM_storage_gc_compaction)->UseManualTime()->Unit(benchmark::kMillisecond);

}  // namespace
}  // namespace magnetar::bookie
