// auditor: finds the ledgers that lost replicas (BookKeeper's Auditor).
//
// One auditor acts at a time: the bookie that holds the ephemeral
// /ledgers/underreplication/auditor node (the others try to take it each
// round, so one takes over when the holder's session ends). Each round the
// acting auditor compares the bookies that ever joined (their cookies) with
// those registered now; a bookie gone for lostBookieRecoveryDelay is lost, and
// every ledger whose ensembles name it is listed as under-replicated
// (underreplication.h) for the replication workers. A bookie that comes back
// before the delay is forgotten.
// Threading: one round at a time, on one executor.
#pragma once

#include "base/clock.h"
#include "base/result.h"
#include "io/asio.h"
#include "meta/store.h"

#include <chrono>
#include <map>
#include <optional>
#include <set>
#include <string>

namespace magnetar::autorecovery {

class auditor {
 public:
  auditor(meta::store& store, std::string bookie_id, base::clock& clock, std::chrono::milliseconds lost_bookie_delay)
      : _store(store), _id(std::move(bookie_id)), _clock(clock), _delay(lost_bookie_delay) {}

  awaitable<result<void>> round();
  bool acting() const { return _acting; }

 private:
  awaitable<result<bool>> take_part();
  awaitable<result<void>> list_ledgers_of(const std::set<std::string>& lost);

  meta::store& _store;
  std::string _id;
  base::clock& _clock;
  std::chrono::milliseconds _delay;
  std::optional<meta::session_id> _session;
  bool _acting = false;
  std::map<std::string, base::clock::time_point> _missing_since;
  std::set<std::string> _listed;  // lost bookies whose ledgers are listed
};

}  // namespace magnetar::autorecovery
