#include "client/running_shards.h"

#include <algorithm>
#include <thread>

namespace magnetar::client_detail {

bool runs_on(const io::shard_set& shards) {
  auto* current = io::shard::current();
  if (current == nullptr) return false;
  auto& set = const_cast<io::shard_set&>(shards);
  for (unsigned i = 0; i < set.size(); ++i) {
    if (&set[i] == current) return true;
  }
  return false;
}

std::shared_ptr<io::shard_set> start_shards(unsigned threads) {
  auto* set = new io::shard_set(std::max(1u, threads));
  set->start();
  return std::shared_ptr<io::shard_set>(set, [](io::shard_set* s) {
    if (runs_on(*s)) {
      std::thread([s] { delete s; }).detach();  // ~shard_set stops and joins
      return;
    }
    delete s;
  });
}

}  // namespace magnetar::client_detail
