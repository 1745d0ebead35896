// storage_write_interval: a topic's storage write figures over its last completed stats
// interval, from the managed ledger's running totals (mledger::storage_write_stats).
// Upstream's bucket gauges (pulsar_storage_write_latency_le_*, ...) cover its stats
// interval (statsUpdateFrequencyInSecs, a minute): its dashboards read them as entries
// per minute. Fed once a second by the topic's tick, so each topic's minute starts when
// it was loaded (upstream refreshes every topic at once): sums over topics mix windows.
// Not thread-safe (the topic's shard).
#pragma once

#include "mledger/managed_ledger.h"

#include <optional>

namespace magnetar::broker {

class storage_write_interval {
 public:
  static constexpr int ticks_per_interval = 60;

  // One tick: the first starts an interval, every ticks_per_interval-th ends one.
  void tick(const mledger::storage_write_stats& totals);
  // The last completed interval's figures; none before the first ends.
  const std::optional<mledger::storage_write_stats>& last() const { return _last; }

 private:
  std::optional<mledger::storage_write_stats> _at_start;
  std::optional<mledger::storage_write_stats> _last;
  int _ticks = 0;
};

}  // namespace magnetar::broker
