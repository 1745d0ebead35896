// What record() costs on an application's listener threads: every received message
// goes through it, at 30k+ msg/s per application across its pods.
#include "perf/measure/sequence_tracker.h"

#include <benchmark/benchmark.h>

#include <cstdint>
#include <memory>
#include <vector>

namespace magnetar::perf {
namespace {

constexpr std::uint64_t devices = 100'000;

// One tracker shared by every thread of a run, as the pods of an application share it.
std::unique_ptr<sequence_tracker> shared;

// Each thread delivers its own devices (device % threads == thread, as Key_Shared keeps
// a device on one consumer) in turn, so every record is an in-order first delivery.
void record_in_order(benchmark::State& state) {
  if (state.thread_index() == 0) shared = std::make_unique<sequence_tracker>(devices);
  const auto threads = static_cast<std::uint64_t>(state.threads());
  const auto me = static_cast<std::uint64_t>(state.thread_index());
  std::vector<std::uint64_t> next(devices, 0);
  std::uint64_t device = me;
  for (auto _ : state) {
    benchmark::DoNotOptimize(shared->record(device, next[device]++, static_cast<int>(me), 0));
    device += threads;
    if (device >= devices) device = me;
  }
  state.SetItemsProcessed(state.iterations());
}
BENCHMARK(record_in_order)->Threads(1)->Threads(4)->UseRealTime();

// Redeliveries after a pod restart: every record a duplicate.
void record_duplicates(benchmark::State& state) {
  sequence_tracker tracker(devices);
  for (std::uint64_t d = 0; d < devices; ++d) tracker.record(d, 0, 0, 0);
  std::uint64_t device = 0;
  for (auto _ : state) {
    benchmark::DoNotOptimize(tracker.record(device, 0, 0, 0));
    if (++device == devices) device = 0;
  }
  state.SetItemsProcessed(state.iterations());
}
BENCHMARK(record_duplicates);

// Every device with a pending gap: the sparse set's cost.
void record_with_gaps(benchmark::State& state) {
  sequence_tracker tracker(devices);
  for (std::uint64_t d = 0; d < devices; ++d) tracker.record(d, 1'000'000'000, 0, 0);
  std::vector<std::uint64_t> next(devices, 0);
  std::uint64_t device = 0;
  for (auto _ : state) {
    benchmark::DoNotOptimize(tracker.record(device, next[device]++, 0, 0));
    if (++device == devices) device = 0;
  }
  state.SetItemsProcessed(state.iterations());
}
BENCHMARK(record_with_gaps);

}  // namespace
}  // namespace magnetar::perf
