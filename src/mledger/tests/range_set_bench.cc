// range_set: cost of acks (consecutive and random), of contains, of persisting, and the
// memory a million acks take.
#include "mledger/range_set.h"

#include <benchmark/benchmark.h>
#include <malloc.h>

#include <random>
#include <vector>

namespace magnetar::mledger {
namespace {

position pos(std::int64_t ledger, std::int64_t entry) { return {ledger_id(ledger), entry_id(entry)}; }

std::size_t heap_in_use() { return mallinfo2().uordblks; }

void add_consecutive(benchmark::State& state) {
  range_set set;
  std::int64_t entry = 0;
  for (auto _ : state) benchmark::DoNotOptimize(set.add(pos(1, entry++)));
  state.SetItemsProcessed(static_cast<std::int64_t>(state.iterations()));
  state.counters["ranges"] = static_cast<double>(set.range_count());
}
BENCHMARK(add_consecutive);

// Acks in random order within a window of outstanding entries that slides forward, as a
// Shared subscription's consumers ack: the set holds up to `window` holes.
void add_random_in_window(benchmark::State& state) {
  const auto window = state.range(0);
  std::mt19937_64 random(42);
  range_set set;
  std::int64_t base = 0;
  for (auto _ : state) {
    set.add(pos(1, base + static_cast<std::int64_t>(random() % static_cast<std::uint64_t>(window))));
    // The mark-delete position follows one entry per ack.
    if (++base % 64 == 0) set.remove_up_to(pos(1, base - 1));
  }
  state.SetItemsProcessed(static_cast<std::int64_t>(state.iterations()));
  state.counters["ranges"] = static_cast<double>(set.range_count());
}
BENCHMARK(add_random_in_window)->Arg(1024)->Arg(64 * 1024);

// Uniformly random acks over a million entries, no mark-delete: up to ~230 K ranges.
void add_random_uniform(benchmark::State& state) {
  constexpr std::int64_t domain = 1 << 20;
  std::mt19937_64 random(43);
  std::vector<std::int64_t> entries(domain);
  for (auto& e : entries) e = static_cast<std::int64_t>(random() % domain);
  range_set set;
  std::size_t i = 0;
  for (auto _ : state) {
    set.add(pos(1, entries[i]));
    if (++i == entries.size()) {
      state.PauseTiming();
      set.clear();
      i = 0;
      state.ResumeTiming();
    }
  }
  state.SetItemsProcessed(static_cast<std::int64_t>(state.iterations()));
}
BENCHMARK(add_random_uniform);

// contains() on a set of every other entry acked: `range(0)` ranges.
void contains_random(benchmark::State& state) {
  const auto ranges = state.range(0);
  range_set set;
  for (std::int64_t e = 0; e < 2 * ranges; e += 2) set.add(pos(1, e));
  std::mt19937_64 random(44);
  std::vector<position> probes(4096);
  for (auto& p : probes) p = pos(1, static_cast<std::int64_t>(random() % static_cast<std::uint64_t>(2 * ranges)));
  std::size_t i = 0;
  for (auto _ : state) benchmark::DoNotOptimize(set.contains(probes[i++ & 4095]));
  state.SetItemsProcessed(static_cast<std::int64_t>(state.iterations()));
}
BENCHMARK(contains_random)->Arg(1)->Arg(10'000)->Arg(1'000'000);

// Heap held after a million acks: consecutive (one range) and every other entry (half a
// million ranges, the worst case), measured with mallinfo2 and as the set estimates it.
void memory_of_a_million_acks(benchmark::State& state) {
  const std::int64_t stride = state.range(0);
  for (auto _ : state) {
    const auto before = heap_in_use();
    range_set set;
    for (std::int64_t e = 0; e < 1'000'000 * stride; e += stride) set.add(pos(1, e));
    const auto after = heap_in_use();
    state.counters["ranges"] = static_cast<double>(set.range_count());
    state.counters["heap_bytes"] = static_cast<double>(after - before);
    state.counters["estimated_bytes"] = static_cast<double>(set.memory_bytes());
    state.counters["bytes_per_ack"] = static_cast<double>(after - before) / 1e6;
  }
}
BENCHMARK(memory_of_a_million_acks)->Arg(1)->Arg(2)->Iterations(1)->Unit(benchmark::kMillisecond);

void serialize_ranges(benchmark::State& state) {
  range_set set;
  for (std::int64_t e = 0; e < 2 * state.range(0); e += 2) set.add(pos(1, e));
  std::size_t size = 0;
  for (auto _ : state) {
    auto written = set.serialize();
    size = written.bytes.size();
    benchmark::DoNotOptimize(written);
  }
  state.SetItemsProcessed(static_cast<std::int64_t>(state.iterations()) * state.range(0));
  state.counters["bytes"] = static_cast<double>(size);
}
BENCHMARK(serialize_ranges)->Arg(10'000);

void deserialize_ranges(benchmark::State& state) {
  range_set set;
  for (std::int64_t e = 0; e < 2 * state.range(0); e += 2) set.add(pos(1, e));
  const auto written = set.serialize();
  for (auto _ : state) benchmark::DoNotOptimize(range_set::deserialize(written.bytes));
  state.SetItemsProcessed(static_cast<std::int64_t>(state.iterations()) * state.range(0));
}
BENCHMARK(deserialize_ranges)->Arg(10'000);

}  // namespace
}  // namespace magnetar::mledger
