// managed_ledger_config: how one managed ledger rolls, keeps and caches its ledgers
// (Pulsar's ManagedLedgerConfig, the parts a broker topic uses).
// A plain value type, copied into the managed ledger at open.
#pragma once

#include "base/clock.h"
#include "mledger/entry_cache.h"

#include <chrono>
#include <cstdint>

namespace magnetar::mledger {

struct managed_ledger_config {
  // A ledger is full, and the next add goes to a new one, at this many entries or bytes
  // (managedLedgerMaxEntriesPerLedger, managedLedgerMaxSizePerLedgerMbytes)...
  std::uint64_t max_entries_per_ledger = 50'000;
  std::uint64_t max_size_per_ledger_bytes = 2048ULL * 1024 * 1024;
  // ...but not before it is this old, so a burst does not make a storm of tiny ledgers
  // (managedLedgerMinLedgerRolloverTimeMinutes).
  base::clock::duration minimum_rollover_time = std::chrono::minutes(10);
  // A ledger that has entries rolls over at this age even when not full, so consumed
  // data can be trimmed (managedLedgerMaxLedgerRolloverTimeMinutes).
  base::clock::duration maximum_rollover_time = std::chrono::hours(4);

  int ensemble_size = 1;
  int write_quorum = 1;
  int ack_quorum = 1;

  // How long and how much consumed data is kept (Pulsar's retention policy): a ledger
  // wholly behind every durable cursor is deleted once it is older than retention_time
  // or the managed ledger is over retention_size_bytes without it. -1: no bound on that
  // axis; both 0 (the default): consumed ledgers go at once.
  std::chrono::milliseconds retention_time{0};
  std::int64_t retention_size_bytes = 0;

  entry_cache_config cache;
  // A read that misses the cache reads about this much more from storage (and at most
  // that many entries), into the cache, for the reader's next reads (0: only what was
  // asked for). The entry cap keeps tiny entries from making a huge read.
  std::size_t read_ahead_bytes = 1 << 20;
  std::size_t read_ahead_max_entries = 1000;

  // The period of the background tick: cache expiry, time-based rollover, trimming, and
  // cursor persistence. A cursor's acks reach the metadata store at most once per tick
  // (and on close), so a crash redelivers at most one tick's worth of acked messages.
  base::clock::duration tick_interval = std::chrono::milliseconds(100);

  // Individually acked ranges persisted per cursor (managedLedgerMaxUnackedRangesToPersist).
  std::size_t max_ranges_to_persist = 10'000;
};

}  // namespace magnetar::mledger
