// entry_cache_budget: the bytes that the entry caches of one shard's managed ledgers hold
// together, the shard's share of the broker's managedLedgerCacheSizeMB.
//
// Each cache alone may grow to the whole share (one busy topic gets all of it). When the
// caches together hold more, every cache gives back in proportion to what it holds until
// 90% of the share is held (upstream's managedLedgerCacheEvictionWatermark), so the
// largest give the most, as with upstream's default eviction policy.
//
// Shard-local like the caches: one per shard, its caches used on that shard only. A cache
// may be destroyed elsewhere (the last reference to its topic goes at shutdown), so the
// list of caches has a lock.
#pragma once

#include "base/clock.h"

#include <cstddef>
#include <mutex>
#include <vector>

namespace magnetar::mledger {

class entry_cache;

class entry_cache_budget {
 public:
  // Checked at most once per `interval`: every managed ledger's tick asks.
  explicit entry_cache_budget(std::size_t max_bytes, base::clock::duration interval = std::chrono::milliseconds(100));
  entry_cache_budget(const entry_cache_budget&) = delete;
  entry_cache_budget& operator=(const entry_cache_budget&) = delete;

  // A cache counts from join() until leave() (its constructor and destructor).
  void join(entry_cache& c);
  void leave(entry_cache& c);

  std::size_t max_bytes() const { return _max_bytes; }
  std::size_t held_bytes() const;

  // Over the budget: shrinks the caches, each by its share, until the watermark is held.
  // Returns the bytes given back (0 when under, or checked less than an interval ago).
  std::size_t enforce(base::clock::time_point now);

 private:
  std::size_t held_bytes_locked() const;

  const std::size_t _max_bytes;
  const base::clock::duration _interval;
  mutable std::mutex _mutex;
  std::vector<entry_cache*> _caches;
  base::clock::time_point _last_check{};
  bool _checked = false;
};

}  // namespace magnetar::mledger
