// replication_worker: empties the under-replicated list (BookKeeper's
// ReplicationWorker). Each round it takes every listed ledger that no other
// worker holds (an ephemeral lock node, so a worker that dies lets go),
// copies its missing replicas (replicate_ledger.h), and unlists it once
// every segment is on registered bookies; a ledger that can't be done yet
// stays listed for a later round.
// Threading: one round at a time, on one executor.
#pragma once

#include "autorecovery/replicate_ledger.h"
#include "base/clock.h"

#include <atomic>
#include <optional>
#include <string>

namespace magnetar::autorecovery {

class replication_worker {
 public:
  replication_worker(ledger::ledger_client& ledgers, meta::store& store, ledger::bookie_directory& bookies,
                     base::clock& clock, replicate_options options)
      : _ledgers(ledgers), _store(store), _bookies(bookies), _clock(clock), _options(options) {}

  // The number of ledgers it unlisted.
  awaitable<result<std::size_t>> round();
  // A round in progress takes no further ledger (its bookie is stopping: a round over
  // many ledgers whose copies cannot be made, as when every bookie stops at once, would
  // hold the stop for as long as they all take to fail). From any thread.
  void stop() { _stopping.store(true); }

 private:
  ledger::ledger_client& _ledgers;
  meta::store& _store;
  ledger::bookie_directory& _bookies;
  base::clock& _clock;
  replicate_options _options;
  std::optional<meta::session_id> _session;
  std::atomic<bool> _stopping{false};
};

}  // namespace magnetar::autorecovery
