// entry_cache: the broker's cache of one managed ledger's recently added and read entries,
// so that tailing and slightly lagging cursors are served from memory, not from bookies.
//
// Modelled on upstream's RangeEntryCacheImpl with PIP-430's eviction:
// - an entry nobody is expected to read lives for a time-to-live
//   (managedLedgerCacheEvictionTimeThresholdMillis, 1 s) after its insert, or after the
//   last read that other cursors were expected to make of it;
// - an entry that other cursors are expected to read (expected reads > 0) lives on while
//   they are, for at most 1 + max_ttl_extensions TTLs
//   (managedLedgerCacheEvictionExtendTTLOfEntriesWithRemainingExpectedReadsMaxTimes, 5)
//   from its insert, or from the expect_read() that made it awaited again; each read
//   takes one expected read off, and the last one starts its final TTL (so at most
//   7 TTLs in all with the defaults, and a redelivered entry starts over).
//   Upstream checks such an entry at every TTL and extends it by one; a life that ends at
//   a fixed span after a state change instead keeps each tier's entries in deadline
//   order, so expiry takes from the fronts of two lists and never visits a waiting
//   entry (a catch-up run extended every cached entry 5 times, 15% of the topic shard's
//   time). An entry read at the end of its life may so outlive upstream's by up to a TTL;
// - the bytes held are bounded; over the bound, entries go in order of usefulness: those
//   whose life is over first, then those nobody is expected to read (longest idle first),
//   then the rest (in the order they became awaited). A new entry nobody is expected to read never displaces
//   one that somebody is: it is not cached instead.
// Expiry happens in evict_expired(), which the owner calls periodically (upstream: every
// 10 ms) and insert() calls when it needs room; until then an expired entry still serves.
//
// Entries are kept as wire::shared_bytes: inserting and reading never copy the bytes. The
// size counted is the slice's; the buffer behind it may be larger (a slice of a bigger
// read), as upstream notes for its own cache.
//
// One per managed ledger, owned by it on the topic's shard; not thread-safe. The bytes
// handed out may travel to other shards (shared_bytes' count is atomic).
#pragma once

#include "base/clock.h"
#include "mledger/position.h"
#include "wire/shared_bytes.h"

#include <boost/intrusive/list.hpp>

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <vector>

namespace magnetar::mledger {

class entry_cache_budget;

struct entry_cache_config {
  // Bytes of entry data held at most by this cache.
  std::size_t max_bytes = 64 * 1024 * 1024;
  base::clock::duration time_to_live = std::chrono::seconds(1);
  std::uint32_t max_ttl_extensions = 5;
  // The budget this cache shares with the other caches of its shard (the broker's
  // managedLedgerCacheSizeMB), if any.
  std::shared_ptr<entry_cache_budget> budget;
};

// Counters for metrics (pulsar_ml_cache_hits_rate, _misses_rate, _evictions, _used_size,
// ...). Entry counts unless named bytes; `entries` and `bytes` are current, the rest
// only grow.
struct entry_cache_stats {
  std::uint64_t hits = 0;
  std::uint64_t hit_bytes = 0;
  // Entries asked for and not served (get_range counts the whole unserved tail).
  std::uint64_t misses = 0;
  std::uint64_t inserts = 0;
  std::uint64_t insert_bytes = 0;
  // Not cached: larger than the whole cache, or no room without displacing entries that
  // are more useful. (Inserting an already cached position is neither.)
  std::uint64_t rejected_inserts = 0;
  // Removals by reason.
  std::uint64_t evicted_expired = 0;
  std::uint64_t evicted_for_size = 0;
  std::uint64_t invalidated = 0;
  std::uint64_t removed_bytes = 0;
  std::size_t entries = 0;
  std::size_t bytes = 0;
};

struct cached_entry {
  position pos;
  wire::shared_bytes data;
};

class entry_cache {
 public:
  enum class insert_result { inserted, already_cached, too_large, no_room };

  // `clock` stamps the moments entries join a tier (insert, the last expected read,
  // expect_read) and judges expiry when insert needs room; it must outlive the cache.
  entry_cache(entry_cache_config config, const base::clock& clock);
  ~entry_cache();
  entry_cache(const entry_cache&) = delete;
  entry_cache& operator=(const entry_cache&) = delete;

  // Caches an entry just added to the ledger, or read from storage for a catch-up read.
  // `expected_reads`: how many reads by other cursors are still to come (upstream: the
  // active cursors for an added entry; the active cursors at or before the reading one,
  // less the reader itself, for an entry read from storage). An already cached position
  // keeps its first entry.
  insert_result insert(position pos, wire::shared_bytes data, std::uint32_t expected_reads);

  // A read: a hit takes one expected read off the entry.
  std::optional<wire::shared_bytes> get(position pos);
  // Entries first..last of one ledger (asserted), in order, up to the first one not
  // cached; the caller reads the rest from storage. Each entry served is a read, as get().
  std::vector<cached_entry> get_range(position first, position last);
  // One more read is expected (the entry went back to a dispatcher's replay queue);
  // false when not cached.
  bool expect_read(position pos);
  // Whether `pos` is cached, without counting a read.
  bool contains(position pos) const { return _entries.contains(pos); }

  // Ends the life of every entry whose life is over at `now` (from this cache's clock).
  // Returns how many entries were evicted.
  std::size_t evict_expired(base::clock::time_point now);
  // Evicts, in eviction order, until at most `max_bytes` are held; returns how many went.
  std::size_t shrink_to(std::size_t max_bytes);
  // Drops every entry at or before `pos` (cursors have all moved past; ledgers trimmed).
  std::size_t invalidate_up_to(position pos);
  std::size_t invalidate_ledger(ledger_id ledger);
  void clear();

  const entry_cache_stats& stats() const { return _stats; }
  const entry_cache_config& config() const { return _config; }

 private:
  enum class removal { expired, size, invalidated };

  struct node;
  using entry_map = std::map<position, node>;
  struct node {
    position pos;
    entry_map::iterator self;  // its place in the map: an eviction needs no lookup
    wire::shared_bytes data;
    // When its life ends, unless its tier changes first.
    base::clock::time_point deadline;
    std::uint32_t expected_reads = 0;
    // In _idle or _awaited.
    boost::intrusive::list_member_hook<> tier_hook;
  };
  // Each tier in the order its entries joined it, which is deadline order: a tier gives
  // every entry that joins it the same span from the clock's now.
  using tier_list = boost::intrusive::list<
      node, boost::intrusive::member_hook<node, boost::intrusive::list_member_hook<>, &node::tier_hook>>;

  void read(node& n);
  void join_idle(node& n, base::clock::time_point now);
  void join_awaited(node& n, base::clock::time_point now);
  std::size_t evict_expired_front(tier_list& tier, base::clock::time_point now);
  bool make_room(std::size_t incoming, bool may_displace_awaited);
  std::size_t evict_front(tier_list& tier, std::size_t max_bytes);
  entry_map::iterator remove(entry_map::iterator it, removal why);

  const entry_cache_config _config;
  const base::clock& _clock;
  // How long an entry lives while other cursors are expected to read it.
  const base::clock::duration _awaited_life;
  entry_map _entries;
  // Nobody is expected to read these: evicted first, in the order they became idle.
  tier_list _idle;
  // Reads are expected: evicted last, in the order they became awaited.
  tier_list _awaited;
  std::size_t _idle_bytes = 0;
  entry_cache_stats _stats;
};

}  // namespace magnetar::mledger
