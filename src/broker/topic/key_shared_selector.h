// key_shared_selector: which consumer of a Key_Shared subscription owns a key hash.
//
// Two ways, as upstream's KeySharedMode:
// - auto_split: consistent hashing. Each consumer puts `points` marks on the 16-bit hash
//   ring (murmur3 of its name and the mark's number); a hash belongs to the consumer of
//   the first mark at or after it, wrapping around. A consumer that joins takes hashes
//   only from its neighbours and one that leaves gives only its own away, so most keys
//   stay where they were.
// - sticky: each consumer names its hash ranges; ranges may not overlap, and a hash no
//   range covers belongs to nobody (its entries wait).
// The consumers are identified by pointer and must be removed before they go. On the
// subscription's shard; not thread-safe.
#pragma once

#include "base/result.h"
#include "proto/pulsar_api.pb.h"

#include <cstdint>
#include <map>
#include <memory>
#include <vector>

namespace magnetar::broker {

class consumer;

class key_shared_selector {
 public:
  virtual ~key_shared_selector() = default;
  // errc::consumer_assign_error when its ranges are invalid or taken.
  virtual result<void> add(consumer& c, const proto::KeySharedMeta& meta) = 0;
  virtual void remove(const consumer& c) = 0;
  // The owner of `hash`, or null.
  virtual consumer* select(std::uint16_t hash) const = 0;
  // The ranges a consumer owns (inclusive), for stats.
  virtual std::vector<std::pair<int, int>> ranges_of(const consumer& c) const = 0;
};

std::unique_ptr<key_shared_selector> make_consistent_hash_selector(int points_per_consumer);
std::unique_ptr<key_shared_selector> make_sticky_range_selector();

}  // namespace magnetar::broker
