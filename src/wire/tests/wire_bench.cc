// Throughput of crc32c (hardware and portable) and of a SEND frame's encode and decode.
#include "wire/crc32c.h"
#include "wire/frame.h"
#include "wire/frame_decoder.h"
#include "wire/tests/test_frames.h"

#include <benchmark/benchmark.h>

namespace magnetar::wire {
namespace {

namespace t = test_support;

void crc32c_hardware_throughput(benchmark::State& state) {
  if (!crc32c_hardware_available()) {
    state.SkipWithError("this CPU has no SSE4.2");
    return;
  }
  const auto bytes = t::random_bytes(static_cast<std::size_t>(state.range(0)), 1);
  for (auto _ : state) benchmark::DoNotOptimize(crc32c_hardware(bytes));
  state.SetBytesProcessed(static_cast<std::int64_t>(state.iterations()) * state.range(0));
}
BENCHMARK(crc32c_hardware_throughput)->Arg(1 << 10)->Arg(64 << 10)->Arg(1 << 20);

void crc32c_portable_throughput(benchmark::State& state) {
  const auto bytes = t::random_bytes(static_cast<std::size_t>(state.range(0)), 1);
  for (auto _ : state) benchmark::DoNotOptimize(crc32c_portable(bytes));
  state.SetBytesProcessed(static_cast<std::int64_t>(state.iterations()) * state.range(0));
}
BENCHMARK(crc32c_portable_throughput)->Arg(1 << 10)->Arg(64 << 10)->Arg(1 << 20);

constexpr std::size_t payload_size = 1024;

void encode_send_1k(benchmark::State& state) {
  const auto command = t::send();
  const auto metadata = t::metadata(1);
  const auto payload = t::random_bytes(payload_size, 2);
  for (auto _ : state) benchmark::DoNotOptimize(encode_payload_command(command, metadata, payload));
  state.SetItemsProcessed(static_cast<std::int64_t>(state.iterations()));
}
BENCHMARK(encode_send_1k);

void decode_send_1k(benchmark::State& state) {
  const auto bytes = encode_payload_command(t::send(), t::metadata(1), t::random_bytes(payload_size, 2));
  frame_decoder decoder;
  for (auto _ : state) {
    decoder.feed(bytes);
    auto decoded = decoder.next();
    benchmark::DoNotOptimize(decoded);
  }
  state.SetItemsProcessed(static_cast<std::int64_t>(state.iterations()));
}
BENCHMARK(decode_send_1k);

void encode_and_decode_send_1k(benchmark::State& state) {
  const auto command = t::send();
  const auto metadata = t::metadata(1);
  const auto payload = t::random_bytes(payload_size, 2);
  frame_decoder decoder;
  for (auto _ : state) {
    decoder.feed(encode_payload_command(command, metadata, payload));
    auto decoded = decoder.next();
    benchmark::DoNotOptimize(decoded);
  }
  state.SetItemsProcessed(static_cast<std::int64_t>(state.iterations()));
  state.SetBytesProcessed(static_cast<std::int64_t>(state.iterations() * payload_size));
}
BENCHMARK(encode_and_decode_send_1k);

}  // namespace
}  // namespace magnetar::wire
