#include "client/unacked_tracker.h"

#include <algorithm>

namespace magnetar::client_detail {

unacked_tracker::unacked_tracker(std::chrono::milliseconds timeout, std::chrono::milliseconds tick)
    : _tick(std::max(std::chrono::milliseconds(1), std::min(tick, timeout))) {
  const auto t = std::max<long long>(1, timeout.count());
  const auto per_tick = _tick.count();
  // One more than the ticks in a timeout: an id added late in the newest tick still
  // waits the whole timeout.
  const auto partitions = static_cast<std::size_t>((t + per_tick - 1) / per_tick) + 1;
  _partitions.resize(partitions);
}

void unacked_tracker::add(const message_id& id) {
  const auto entry = id.entry();
  if (_where.contains(entry)) return;
  _partitions.back().insert(entry);
  _where.emplace(entry, _first_generation + _partitions.size() - 1);
}

void unacked_tracker::remove(const message_id& id) {
  auto it = _where.find(id.entry());
  if (it == _where.end()) return;
  _partitions[it->second - _first_generation].erase(it->first);
  _where.erase(it);
}

void unacked_tracker::remove_upto(const message_id& id) {
  const auto last = id.entry();
  for (auto it = _where.begin(); it != _where.end() && it->first <= last;) {
    _partitions[it->second - _first_generation].erase(it->first);
    it = _where.erase(it);
  }
}

std::vector<message_id> unacked_tracker::tick() {
  auto expired = std::move(_partitions.front());
  _partitions.pop_front();
  _partitions.emplace_back();
  ++_first_generation;
  for (const auto& id : expired) _where.erase(id);
  return {expired.begin(), expired.end()};
}

void unacked_tracker::clear() {
  for (auto& p : _partitions) p.clear();
  _where.clear();
}

}  // namespace magnetar::client_detail
