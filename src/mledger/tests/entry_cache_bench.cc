// entry_cache: insert + get of 1 KiB entries (tailing cursors), the same at the size
// bound (every insert evicts), expiry sweeps, and range reads.
#include "mledger/entry_cache.h"

#include <benchmark/benchmark.h>

#include <chrono>
#include <vector>

namespace magnetar::mledger {
namespace {

using namespace std::chrono_literals;

constexpr std::size_t entry_size = 1024;

position pos(std::int64_t entry) { return {ledger_id(1), entry_id(entry)}; }

// One buffer sliced per entry, as entries decoded from one connection read share theirs.
class payloads {
 public:
  payloads() : _buffer(wire::shared_bytes::copy_of(std::vector<std::byte>(entry_size * 64))) {}
  wire::shared_bytes next() { return _buffer.slice((_i++ % 64) * entry_size, entry_size); }

 private:
  wire::shared_bytes _buffer;
  std::size_t _i = 0;
};

entry_cache_config config_of(std::size_t max_bytes) {
  entry_cache_config config;
  config.max_bytes = max_bytes;
  return config;
}

// A tailing cursor: insert with one expected read, read it back; cursors moving on
// invalidate what is behind them every 1024 entries.
void insert_get_1k(benchmark::State& state) {
  base::manual_clock clock;
  entry_cache cache(config_of(64 << 20), clock);
  payloads data;
  std::int64_t entry = 0;
  for (auto _ : state) {
    cache.insert(pos(entry), data.next(), 1);
    benchmark::DoNotOptimize(cache.get(pos(entry)));
    if (++entry % 1024 == 0) cache.invalidate_up_to(pos(entry - 1024));
  }
  state.SetItemsProcessed(static_cast<std::int64_t>(state.iterations()));
  state.SetBytesProcessed(static_cast<std::int64_t>(state.iterations() * entry_size));
}
BENCHMARK(insert_get_1k);

// The same with the cache full: every insert first evicts the oldest idle entry.
void insert_get_1k_at_size_bound(benchmark::State& state) {
  base::manual_clock clock;
  entry_cache cache(config_of(static_cast<std::size_t>(state.range(0)) * entry_size), clock);
  payloads data;
  std::int64_t entry = 0;
  for (; entry < state.range(0); ++entry) cache.insert(pos(entry), data.next(), 0);
  for (auto _ : state) {
    cache.insert(pos(entry), data.next(), 1);
    benchmark::DoNotOptimize(cache.get(pos(entry)));
    ++entry;
  }
  state.SetItemsProcessed(static_cast<std::int64_t>(state.iterations()));
  state.counters["evicted"] = static_cast<double>(cache.stats().evicted_for_size);
}
BENCHMARK(insert_get_1k_at_size_bound)->Arg(16 * 1024)->Arg(256 * 1024);

// Expiry of a batch of `range(0)` entries whose TTL has passed, per entry evicted.
void evict_expired_batch(benchmark::State& state) {
  const auto batch = state.range(0);
  base::manual_clock clock;
  entry_cache cache(config_of(std::size_t(1) << 40), clock);
  payloads data;
  std::int64_t entry = 0;
  for (auto _ : state) {
    state.PauseTiming();
    for (std::int64_t i = 0; i < batch; ++i) cache.insert(pos(entry++), data.next(), 0);
    clock.advance(1s);
    state.ResumeTiming();
    benchmark::DoNotOptimize(cache.evict_expired(clock.now()));
  }
  state.SetItemsProcessed(static_cast<std::int64_t>(state.iterations()) * batch);
}
BENCHMARK(evict_expired_batch)->Arg(10'000);

// An expiry sweep (every 100 ms in a broker) while `range(0)` entries wait for reads: it
// does not visit them, so its cost does not grow with them. Per sweep.
void expiry_sweep_while_entries_are_awaited(benchmark::State& state) {
  const auto batch = state.range(0);
  base::manual_clock clock;
  entry_cache cache(config_of(std::size_t(1) << 40), clock);
  payloads data;
  for (std::int64_t i = 0; i < batch; ++i) cache.insert(pos(i), data.next(), 1);
  for (auto _ : state) {
    // 1 ns a sweep: billions of sweeps stay within the entries' 6 s of awaited life.
    clock.advance(std::chrono::nanoseconds(1));
    benchmark::DoNotOptimize(cache.evict_expired(clock.now()));
  }
  state.SetItemsProcessed(static_cast<std::int64_t>(state.iterations()));
}
BENCHMARK(expiry_sweep_while_entries_are_awaited)->Arg(10'000);

void get_range_100(benchmark::State& state) {
  base::manual_clock clock;
  entry_cache cache(config_of(64 << 20), clock);
  payloads data;
  for (std::int64_t i = 0; i < 10'000; ++i) cache.insert(pos(i), data.next(), 0);
  std::int64_t first = 0;
  for (auto _ : state) {
    benchmark::DoNotOptimize(cache.get_range(pos(first), pos(first + 99)));
    first = (first + 100) % 9'900;
  }
  state.SetItemsProcessed(static_cast<std::int64_t>(state.iterations()) * 100);
}
BENCHMARK(get_range_100);

}  // namespace
}  // namespace magnetar::mledger
