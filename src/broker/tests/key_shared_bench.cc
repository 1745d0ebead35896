// What Key_Shared dispatch costs per entry on the broker: reading the sticky key from the
// stored metadata, hashing it, and finding its consumer among ten.
#include "broker/consumer.h"
#include "broker/key_shared_selector.h"
#include "broker/sticky_key.h"

#include <benchmark/benchmark.h>

#include <memory>
#include <string>
#include <vector>

namespace magnetar::broker {
namespace {

void select_among_ten(benchmark::State& state) {
  auto selector = make_consistent_hash_selector(100);
  std::vector<std::unique_ptr<consumer>> consumers;
  for (int i = 0; i < 10; ++i) {
    consumers.push_back(std::make_unique<consumer>(nullptr, nullptr, 1, "consumer-" + std::to_string(i), 0));
    (void)selector->add(*consumers.back(), {});
  }
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

}  // namespace
}  // namespace magnetar::broker
