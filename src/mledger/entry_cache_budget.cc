#include "mledger/entry_cache_budget.h"

#include "mledger/entry_cache.h"

#include <algorithm>

namespace magnetar::mledger {

entry_cache_budget::entry_cache_budget(std::size_t max_bytes, base::clock::duration interval)
    : _max_bytes(max_bytes), _interval(interval) {}

void entry_cache_budget::join(entry_cache& c) {
  std::lock_guard lock(_mutex);
  _caches.push_back(&c);
}

void entry_cache_budget::leave(entry_cache& c) {
  std::lock_guard lock(_mutex);
  std::erase(_caches, &c);
}

std::size_t entry_cache_budget::held_bytes() const {
  std::lock_guard lock(_mutex);
  return held_bytes_locked();
}

std::size_t entry_cache_budget::held_bytes_locked() const {
  std::size_t held = 0;
  for (const auto* c : _caches) held += c->stats().bytes;
  return held;
}

std::size_t entry_cache_budget::enforce(base::clock::time_point now) {
  if (_checked && now - _last_check < _interval) return 0;
  _checked = true;
  _last_check = now;
  std::lock_guard lock(_mutex);
  const auto held = held_bytes_locked();
  if (held <= _max_bytes) return 0;
  // Each cache gives back in proportion to what it holds, so the largest give the most
  // and none is emptied for the others.
  const auto to_free = held - _max_bytes / 10 * 9;
  std::size_t freed = 0;
  for (auto* c : _caches) {
    const auto before = c->stats().bytes;
    const auto share = static_cast<std::size_t>((static_cast<unsigned __int128>(to_free) * before + held - 1) / held);
    c->shrink_to(before - std::min(before, share));
    freed += before - c->stats().bytes;
  }
  return freed;
}

}  // namespace magnetar::mledger
