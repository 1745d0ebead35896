// What Key_Shared dispatch costs per entry on the broker: reading the sticky key from the
// stored metadata, hashing it, and finding its consumer among ten; and what reading the
// metadata costs, parsed whole or only the fields dispatch needs.
#include "broker/topic/consumer.h"
#include "broker/topic/dispatch_fields.h"
#include "broker/topic/entry_format.h"
#include "broker/topic/key_shared_selector.h"
#include "broker/topic/sticky_key.h"
#include "wire/big_endian.h"

#include <benchmark/benchmark.h>

#include <memory>
#include <string>
#include <vector>

namespace magnetar::broker {
namespace {

// Ten consumers on `selector`, as a Key_Shared subscription of ten pods has.
std::vector<std::unique_ptr<consumer>> add_ten_consumers(key_shared_selector& selector) {
  std::vector<std::unique_ptr<consumer>> consumers;
  for (int i = 0; i < 10; ++i) {
    consumers.push_back(
        std::make_unique<consumer>(nullptr, nullptr, consumer_id{1}, "consumer-" + std::to_string(i), 0));
    (void)selector.add(*consumers.back(), {});
  }
  return consumers;
}

void select_among_ten(benchmark::State& state) {
  auto selector = make_consistent_hash_selector(100);
  const auto consumers = add_ten_consumers(*selector);
  std::vector<proto::MessageMetadata> entries(1000);
  for (std::size_t i = 0; i < entries.size(); ++i) entries[i].set_partition_key("device-" + std::to_string(i));
  std::size_t i = 0;
  for (auto _ : state) {
    const auto& md = entries[i++ % entries.size()];
    benchmark::DoNotOptimize(selector->select(sticky_key_hash(md)));
  }
  state.SetItemsProcessed(state.iterations());
}
BENCHMARK(select_among_ten);

// The ring lookup alone, for hashes spread over the whole ring (a million devices).
void select_hash_among_ten(benchmark::State& state) {
  auto selector = make_consistent_hash_selector(100);
  const auto consumers = add_ten_consumers(*selector);
  std::uint16_t hash = 0;
  for (auto _ : state) {
    hash = static_cast<std::uint16_t>(hash * 40503u + 12345u);
    benchmark::DoNotOptimize(selector->select(hash));
  }
  state.SetItemsProcessed(state.iterations());
}
BENCHMARK(select_hash_among_ten);

// Stored entries as an IoT gateway's key-based batches of one message make them.
std::vector<wire::shared_bytes> telemetry_entries() {
  std::vector<wire::shared_bytes> entries;
  for (int i = 0; i < 1000; ++i) {
    proto::MessageMetadata m;
    m.set_producer_name("gateway-" + std::to_string(i % 50));
    m.set_sequence_id(static_cast<std::uint64_t>(i) * 7919);
    m.set_publish_time(1'700'000'000'000 + i);
    m.set_partition_key("device-" + std::to_string(i));
    m.set_num_messages_in_batch(1);
    m.set_uncompressed_size(64);
    const auto encoded = m.SerializeAsString();
    std::string bytes(4, '\0');
    wire::store_be32(reinterpret_cast<std::byte*>(bytes.data()), static_cast<std::uint32_t>(encoded.size()));
    bytes += encoded;
    bytes += std::string(64, 'p');
    entries.push_back(wire::shared_bytes::copy_of(std::as_bytes(std::span(bytes))));
  }
  return entries;
}

void key_hash_from_parsed_metadata(benchmark::State& state) {
  const auto entries = telemetry_entries();
  std::size_t i = 0;
  for (auto _ : state) {
    auto metadata = entry_metadata(entries[i++ % entries.size()]);
    benchmark::DoNotOptimize(sticky_key_hash(metadata.value()) + messages_in(metadata.value()));
  }
  state.SetItemsProcessed(state.iterations());
}
BENCHMARK(key_hash_from_parsed_metadata);

void key_hash_from_dispatch_fields(benchmark::State& state) {
  const auto entries = telemetry_entries();
  std::size_t i = 0;
  for (auto _ : state) {
    auto fields = dispatch_fields_of(entries[i++ % entries.size()]);
    benchmark::DoNotOptimize(sticky_key_hash(fields.value()) + fields.value().messages);
  }
  state.SetItemsProcessed(state.iterations());
}
BENCHMARK(key_hash_from_dispatch_fields);

}  // namespace
}  // namespace magnetar::broker
