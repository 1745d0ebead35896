// The SDK's CPU cost per message outside the network: building a batch entry (with and
// without compression) and splitting a received one back into messages.
#include "client/batch_format.h"
#include "client/commands.h"
#include "client/compression.h"
#include "client/producer_batch.h"

#include <benchmark/benchmark.h>

#include <string>

namespace magnetar::client_detail {
namespace {

std::vector<queued_message> messages(int count, std::size_t size) {
  std::vector<queued_message> out;
  for (int i = 0; i < count; ++i) {
    auto d = std::make_shared<message_data>();
    std::string payload(size, static_cast<char>('a' + i % 26));
    d->payload = wire::shared_bytes::copy_of(std::as_bytes(std::span<const char>(payload.data(), payload.size())));
    d->key = "key-" + std::to_string(i % 16);
    out.push_back(queued_message{std::move(d), static_cast<std::uint64_t>(i), {}});
  }
  return out;
}

void build_send_frame(benchmark::State& state, compression_type compression) {
  const int count = static_cast<int>(state.range(0));
  const auto input = messages(count, 100);
  const entry_context context{"bench", 1'700'000'000'000, compression};
  for (auto _ : state) {
    auto copy = input;
    auto e = build_batch(std::move(copy), context);
    auto frame = encode_payload_command(send_command(1, e.sequence_id, e.num_messages, 0), e.metadata, e.payload);
    benchmark::DoNotOptimize(frame.data());
  }
  state.SetItemsProcessed(state.iterations() * count);
}

void receive_batch(benchmark::State& state, compression_type compression) {
  const int count = static_cast<int>(state.range(0));
  const entry_context context{"bench", 1'700'000'000'000, compression};
  auto e = build_batch(messages(count, 100), context);
  const auto packed = wire::shared_bytes::copy_of(e.payload);
  for (auto _ : state) {
    auto raw = decompress(e.metadata.compression(), packed, e.metadata.uncompressed_size());
    auto split = decode_batch(raw.value(), count);
    benchmark::DoNotOptimize(split.value().data());
  }
  state.SetItemsProcessed(state.iterations() * count);
}

BENCHMARK_CAPTURE(build_send_frame, none, compression_type::none)->Arg(1)->Arg(100)->Arg(1000);
BENCHMARK_CAPTURE(build_send_frame, lz4, compression_type::lz4)->Arg(100)->Arg(1000);
BENCHMARK_CAPTURE(build_send_frame, zstd, compression_type::zstd)->Arg(100)->Arg(1000);
BENCHMARK_CAPTURE(receive_batch, none, compression_type::none)->Arg(100)->Arg(1000);
BENCHMARK_CAPTURE(receive_batch, lz4, compression_type::lz4)->Arg(100)->Arg(1000);
BENCHMARK_CAPTURE(receive_batch, zstd, compression_type::zstd)->Arg(100)->Arg(1000);

}  // namespace
}  // namespace magnetar::client_detail
