#include "mledger/entry_cache.h"

#include "base/assert.h"
#include "mledger/entry_cache_budget.h"

#include <algorithm>
#include <limits>

namespace magnetar::mledger {

namespace {

// 1 + max_ttl_extensions TTLs, at most a quarter of the clock's range: a huge setting is
// an endless life, and deadlines (now + life) never overflow.
base::clock::duration awaited_life_of(const entry_cache_config& config) {
  const auto ttl = config.time_to_live.count();
  if (ttl <= 0) return config.time_to_live;  // refused by the constructor
  const std::int64_t most = base::clock::duration::max().count() / 4 / ttl;
  return config.time_to_live *
         std::min<std::int64_t>(std::int64_t{1} + config.max_ttl_extensions, std::max<std::int64_t>(most, 1));
}

}  // namespace

entry_cache::entry_cache(entry_cache_config config, const base::clock& clock)
    : _config(config), _clock(clock), _awaited_life(awaited_life_of(config)) {
  // With a zero TTL every entry would go at the next expiry check: a cache that holds nothing.
  MAGNETAR_ASSERT(_config.time_to_live > base::clock::duration::zero(), "entry cache TTL must be positive");
  if (_config.budget) _config.budget->join(*this);
}

// The tier lists are declared after the map, so they unlink every node before the map
// frees them.
entry_cache::~entry_cache() {
  if (_config.budget) _config.budget->leave(*this);
}

entry_cache::insert_result entry_cache::insert(position pos, wire::shared_bytes data, std::uint32_t expected_reads) {
  // Entries mostly come in position order (adds, catch-up reads): past the last one, the
  // position is new and its place is the end, with no walk of the map.
  const bool appends = _entries.empty() || _entries.rbegin()->first < pos;
  if (!appends && _entries.contains(pos)) return insert_result::already_cached;
  const std::size_t size = data.size();
  if (size > _config.max_bytes) {
    ++_stats.rejected_inserts;
    return insert_result::too_large;
  }
  if (!make_room(size, expected_reads > 0)) {
    ++_stats.rejected_inserts;
    return insert_result::no_room;
  }
  // make_room may have removed the last entry: the hint is taken after it.
  const auto at = _entries.emplace_hint(appends ? _entries.end() : _entries.lower_bound(pos), pos, node{});
  node& n = at->second;
  n.self = at;
  n.pos = pos;
  n.data = std::move(data);
  n.expected_reads = expected_reads;
  if (expected_reads > 0) {
    join_awaited(n, _clock.now());
  } else {
    join_idle(n, _clock.now());
  }
  ++_stats.inserts;
  _stats.insert_bytes += size;
  ++_stats.entries;
  _stats.bytes += size;
  return insert_result::inserted;
}

std::optional<wire::shared_bytes> entry_cache::get(position pos) {
  const auto it = _entries.find(pos);
  if (it == _entries.end()) {
    ++_stats.misses;
    return std::nullopt;
  }
  read(it->second);
  return it->second.data;
}

std::vector<cached_entry> entry_cache::get_range(position first, position last) {
  MAGNETAR_ASSERT(first.ledger() == last.ledger() && first <= last && first.entry().value() >= 0,
                  "a cache range is one ledger's entries in order, not {}..{}", first, last);
  const auto wanted = static_cast<std::uint64_t>(last.entry().value() - first.entry().value()) + 1;
  std::vector<cached_entry> out;
  out.reserve(static_cast<std::size_t>(std::min<std::uint64_t>(wanted, _entries.size())));
  auto it = _entries.find(first);
  for (std::uint64_t i = 0; i < wanted; ++i, ++it) {
    const position expected(first.ledger(), entry_id(first.entry().value() + static_cast<std::int64_t>(i)));
    if (it == _entries.end() || it->first != expected) break;
    read(it->second);
    out.push_back({expected, it->second.data});
  }
  _stats.misses += wanted - out.size();
  return out;
}

bool entry_cache::expect_read(position pos) {
  const auto it = _entries.find(pos);
  if (it == _entries.end()) return false;
  node& n = it->second;
  if (n.expected_reads++ == 0) {
    _idle.erase(_idle.iterator_to(n));
    _idle_bytes -= n.data.size();
    join_awaited(n, _clock.now());
  }
  return true;
}

void entry_cache::join_idle(node& n, base::clock::time_point now) {
  n.deadline = now + _config.time_to_live;
  _idle.push_back(n);
  _idle_bytes += n.data.size();
}

void entry_cache::join_awaited(node& n, base::clock::time_point now) {
  n.deadline = now + _awaited_life;
  _awaited.push_back(n);
}

void entry_cache::read(node& n) {
  ++_stats.hits;
  _stats.hit_bytes += n.data.size();
  if (n.expected_reads > 0 && --n.expected_reads == 0) {
    _awaited.erase(_awaited.iterator_to(n));
    // The clock is read only here, for the last expected read: most reads change no tier.
    join_idle(n, _clock.now());
  }
}

std::size_t entry_cache::evict_expired(base::clock::time_point now) {
  return evict_expired_front(_idle, now) + evict_expired_front(_awaited, now);
}

std::size_t entry_cache::evict_expired_front(tier_list& tier, base::clock::time_point now) {
  std::size_t evicted = 0;
  while (!tier.empty() && tier.front().deadline <= now) {
    remove(tier.front().self, removal::expired);
    ++evicted;
  }
  return evicted;
}

std::size_t entry_cache::shrink_to(std::size_t max_bytes) {
  if (_stats.bytes <= max_bytes) return 0;
  std::size_t evicted = evict_expired(_clock.now());
  evicted += evict_front(_idle, max_bytes);
  evicted += evict_front(_awaited, max_bytes);
  return evicted;
}

bool entry_cache::make_room(std::size_t incoming, bool may_displace_awaited) {
  const std::size_t target = _config.max_bytes - incoming;  // incoming <= max_bytes
  if (_stats.bytes <= target) return true;
  evict_expired(_clock.now());
  if (_stats.bytes <= target) return true;
  // Checked before evicting anything, so that a refused entry costs the cache nothing.
  if (!may_displace_awaited && _stats.bytes - _idle_bytes > target) return false;
  evict_front(_idle, target);
  if (may_displace_awaited) evict_front(_awaited, target);
  return _stats.bytes <= target;
}

std::size_t entry_cache::evict_front(tier_list& tier, std::size_t max_bytes) {
  std::size_t evicted = 0;
  while (_stats.bytes > max_bytes && !tier.empty()) {
    remove(tier.front().self, removal::size);
    ++evicted;
  }
  return evicted;
}

std::size_t entry_cache::invalidate_up_to(position pos) {
  std::size_t removed = 0;
  for (auto it = _entries.begin(); it != _entries.end() && it->first <= pos; ++removed) {
    it = remove(it, removal::invalidated);
  }
  return removed;
}

std::size_t entry_cache::invalidate_ledger(ledger_id ledger) {
  std::size_t removed = 0;
  auto it = _entries.lower_bound(position(ledger, entry_id(std::numeric_limits<std::int64_t>::min())));
  while (it != _entries.end() && it->first.ledger() == ledger) {
    it = remove(it, removal::invalidated);
    ++removed;
  }
  return removed;
}

void entry_cache::clear() {
  for (auto it = _entries.begin(); it != _entries.end();) it = remove(it, removal::invalidated);
}

entry_cache::entry_map::iterator entry_cache::remove(entry_map::iterator it, removal why) {
  MAGNETAR_ASSERT(it != _entries.end(), "removing an entry that is not cached");
  node& n = it->second;
  const std::size_t size = n.data.size();
  if (n.expected_reads > 0) {
    _awaited.erase(_awaited.iterator_to(n));
  } else {
    _idle.erase(_idle.iterator_to(n));
    _idle_bytes -= size;
  }
  switch (why) {
    case removal::expired: ++_stats.evicted_expired; break;
    case removal::size: ++_stats.evicted_for_size; break;
    case removal::invalidated: ++_stats.invalidated; break;
  }
  _stats.removed_bytes += size;
  --_stats.entries;
  _stats.bytes -= size;
  return _entries.erase(it);
}

}  // namespace magnetar::mledger
