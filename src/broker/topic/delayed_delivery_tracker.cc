#include "broker/topic/delayed_delivery_tracker.h"

#include <algorithm>

namespace magnetar::broker {

bool delayed_delivery_tracker::add(mledger::position p, std::uint16_t key_hash, std::int64_t deliver_at_ms,
                                   std::int64_t now_ms) {
  if (deliver_at_ms <= now_ms) return false;
  if (!_due_of.try_emplace(p, deliver_at_ms, key_hash).second) return false;
  _by_time.insert(held{deliver_at_ms, p});
  return true;
}

std::vector<delayed_delivery_tracker::due_entry> delayed_delivery_tracker::take_due(std::int64_t now_ms) {
  _last_tick_ms = now_ms;
  std::vector<due_entry> out;
  auto it = _by_time.begin();
  for (; it != _by_time.end() && it->deliver_at_ms <= now_ms; ++it) {
    auto found = _due_of.find(it->pos);
    out.push_back({it->pos, found->second.second});
    _due_of.erase(found);
  }
  _by_time.erase(_by_time.begin(), it);
  // The replay set wants them in topic order (Key_Shared keeps a key's order by it).
  std::sort(out.begin(), out.end(), [](const due_entry& a, const due_entry& b) { return a.pos < b.pos; });
  return out;
}

std::optional<std::int64_t> delayed_delivery_tracker::next_wakeup_ms() const {
  if (_by_time.empty()) return std::nullopt;
  return std::max(_by_time.begin()->deliver_at_ms, _last_tick_ms + _tick_ms);
}

void delayed_delivery_tracker::clear() {
  _by_time.clear();
  _due_of.clear();
}

}  // namespace magnetar::broker
