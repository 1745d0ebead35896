// What a histogram costs on the paths that use it: record() on every request,
// percentiles and merge in periodic reports, serialise/deserialise to ship
// per-shard histograms to a collector.
#include "base/histogram.h"

#include <benchmark/benchmark.h>

#include <cmath>
#include <cstdint>
#include <random>
#include <string>
#include <vector>

namespace magnetar::base {
namespace {

constexpr std::int64_t one_hour_ns = 3'600'000'000'000;

// Latencies spread log-uniformly from 1 us to 1 s: the worst case for the
// cache, since consecutive records land far apart.
std::vector<std::int64_t> latencies(std::size_t n, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> exponent(std::log(1e3), std::log(1e9));
  std::vector<std::int64_t> out(n);
  for (auto& v : out) v = std::llround(std::exp(exponent(rng)));
  return out;
}

histogram filled(std::size_t n, std::uint64_t seed, int digits = 3) {
  histogram h(one_hour_ns, digits);
  for (std::int64_t v : latencies(n, seed)) h.record(v);
  return h;
}

void record(benchmark::State& state) {
  histogram h(one_hour_ns, static_cast<int>(state.range(0)));
  const std::vector<std::int64_t> values = latencies(4096, 1);
  std::size_t i = 0;
  for (auto _ : state) {
    h.record(values[i++ & 4095]);
  }
  benchmark::DoNotOptimize(h.total_count());
  state.SetItemsProcessed(static_cast<std::int64_t>(state.iterations()));
}
BENCHMARK(record)->ArgName("digits")->Arg(2)->Arg(3)->Arg(5);

// The same value again and again: the cost without cache misses.
void record_same_value(benchmark::State& state) {
  histogram h(one_hour_ns);
  std::int64_t v = 1'234'567;
  for (auto _ : state) {
    benchmark::DoNotOptimize(v);
    h.record(v);
  }
  benchmark::DoNotOptimize(h.total_count());
  state.SetItemsProcessed(static_cast<std::int64_t>(state.iterations()));
}
BENCHMARK(record_same_value);

void record_with_count(benchmark::State& state) {
  histogram h(one_hour_ns);
  const std::vector<std::int64_t> values = latencies(4096, 2);
  std::size_t i = 0;
  for (auto _ : state) {
    h.record(values[i & 4095], static_cast<std::int64_t>(i & 7) + 1);
    ++i;
  }
  benchmark::DoNotOptimize(h.total_count());
  state.SetItemsProcessed(static_cast<std::int64_t>(state.iterations()));
}
BENCHMARK(record_with_count);

// Argument: the percentile in hundredths.
void value_at_percentile(benchmark::State& state) {
  const histogram h = filled(1'000'000, 3);
  const double p = static_cast<double>(state.range(0)) / 100.0;
  for (auto _ : state) {
    benchmark::DoNotOptimize(h.value_at_percentile(p));
  }
}
BENCHMARK(value_at_percentile)->ArgName("p_x100")->Arg(5000)->Arg(9000)->Arg(9900)->Arg(9999)->Arg(10000);

// Both walk every slot between min and max (~20,000 here).
void mean(benchmark::State& state) {
  const histogram h = filled(1'000'000, 4);
  for (auto _ : state) {
    benchmark::DoNotOptimize(h.mean());
  }
}
BENCHMARK(mean);

void stddev(benchmark::State& state) {
  const histogram h = filled(1'000'000, 4);
  for (auto _ : state) {
    benchmark::DoNotOptimize(h.stddev());
  }
}
BENCHMARK(stddev);

// Argument: samples per histogram, which decides how many slots are in use.
void merge(benchmark::State& state) {
  const histogram other = filled(static_cast<std::size_t>(state.range(0)), 5);
  histogram h = filled(static_cast<std::size_t>(state.range(0)), 6);
  for (auto _ : state) {
    auto merged = h.merge(other);
    benchmark::DoNotOptimize(merged);
  }
}
BENCHMARK(merge)->ArgName("samples")->Arg(1'000)->Arg(1'000'000);

void serialize(benchmark::State& state) {
  const histogram h = filled(static_cast<std::size_t>(state.range(0)), 7);
  std::size_t bytes = 0;
  for (auto _ : state) {
    std::string s = h.serialize();
    bytes = s.size();
    benchmark::DoNotOptimize(s);
  }
  state.counters["wire_bytes"] = static_cast<double>(bytes);
  state.SetBytesProcessed(static_cast<std::int64_t>(state.iterations() * bytes));
}
BENCHMARK(serialize)->ArgName("samples")->Arg(1'000)->Arg(1'000'000);

void deserialize(benchmark::State& state) {
  const std::string bytes = filled(static_cast<std::size_t>(state.range(0)), 8).serialize();
  for (auto _ : state) {
    auto h = histogram::deserialize(bytes);
    benchmark::DoNotOptimize(h);
  }
  state.counters["wire_bytes"] = static_cast<double>(bytes.size());
  state.SetBytesProcessed(static_cast<std::int64_t>(state.iterations() * bytes.size()));
}
BENCHMARK(deserialize)->ArgName("samples")->Arg(1'000)->Arg(1'000'000);

}  // namespace
}  // namespace magnetar::base
