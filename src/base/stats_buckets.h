// stats_buckets: how many values fell at or under each of a few fixed bounds, with their
// count and sum, as upstream's StatsBuckets keep them for its
// pulsar_storage_write_latency_le_* and pulsar_entry_size_le_* families. A value counts in
// the first bucket whose bound is at least it, or in the overflow bucket past the last.
// The counts only grow; since() gives an interval's worth (the difference from an earlier
// copy). Not thread-safe: one owner records, copies travel.
#pragma once

#include <cstdint>
#include <span>
#include <string_view>
#include <vector>

namespace magnetar::base {

// A bound with the names it goes by, so that one table gives both the values counted
// against and what metrics and help texts call them.
struct stats_bound {
  std::int64_t value;
  std::string_view name;  // in a metric family's name, e.g. "0_5" (..._le_0_5)
  std::string_view text;  // for a reader, e.g. "0.5 ms"
};

// The values of a bound table, for stats_buckets' constructor.
std::vector<std::int64_t> values_of(std::span<const stats_bound> bounds);

class stats_buckets {
 public:
  // `bounds` ascending.
  explicit stats_buckets(std::vector<std::int64_t> bounds);

  void record(std::int64_t value);

  const std::vector<std::int64_t>& bounds() const { return _bounds; }
  // One per bound, then the overflow.
  std::span<const std::uint64_t> counts() const { return _counts; }
  std::uint64_t count() const { return _count; }
  std::int64_t sum() const { return _sum; }

  // What was recorded after `earlier`, a copy of this one taken before.
  stats_buckets since(const stats_buckets& earlier) const;

 private:
  std::vector<std::int64_t> _bounds;
  std::vector<std::uint64_t> _counts;
  std::uint64_t _count = 0;
  std::int64_t _sum = 0;
};

}  // namespace magnetar::base
