#include "base/stats_buckets.h"

#include "base/assert.h"

#include <algorithm>

namespace magnetar::base {

std::vector<std::int64_t> values_of(std::span<const stats_bound> bounds) {
  std::vector<std::int64_t> values;
  values.reserve(bounds.size());
  for (const auto& b : bounds) values.push_back(b.value);
  return values;
}

stats_buckets::stats_buckets(std::vector<std::int64_t> bounds)
    : _bounds(std::move(bounds)), _counts(_bounds.size() + 1, 0) {
  MAGNETAR_ASSERT(std::is_sorted(_bounds.begin(), _bounds.end()), "stats bucket bounds must ascend");
}

void stats_buckets::record(std::int64_t value) {
  const auto at = std::lower_bound(_bounds.begin(), _bounds.end(), value) - _bounds.begin();
  ++_counts[static_cast<std::size_t>(at)];
  ++_count;
  _sum += value;
}

stats_buckets stats_buckets::since(const stats_buckets& earlier) const {
  MAGNETAR_ASSERT(earlier._bounds == _bounds, "stats buckets with other bounds");
  stats_buckets interval(_bounds);
  for (std::size_t i = 0; i < _counts.size(); ++i) interval._counts[i] = _counts[i] - earlier._counts[i];
  interval._count = _count - earlier._count;
  interval._sum = _sum - earlier._sum;
  return interval;
}

}  // namespace magnetar::base
