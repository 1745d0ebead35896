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
//
// With a periodic check (BookKeeper's auditorPeriodicCheckInterval), the
// acting auditor also asks, every that long, each bookie of every closed
// ledger whether it still holds its share (ledger_checker.h), and lists the
// ledgers some registered bookie lacks entries of, naming that bookie: the
// workers copy its share to another bookie (a disk that lost files, a ledger
// deleted by hand).
// Threading: one round at a time, on one executor.
#pragma once

#include "base/clock.h"
#include "base/result.h"
#include "io/asio.h"
#include "ledger/bookie_client.h"
#include "ledger/ledger_metadata.h"
#include "meta/store.h"

#include <chrono>
#include <functional>
#include <map>
#include <optional>
#include <set>
#include <string>

namespace magnetar::autorecovery {

struct periodic_check {
  ledger::bookie_directory* bookies = nullptr;  // nullptr: no periodic check
  std::chrono::milliseconds interval{0};        // 0: none
};

class auditor {
 public:
  auditor(meta::store& store, std::string bookie_id, base::clock& clock, std::chrono::milliseconds lost_bookie_delay,
          periodic_check check = {})
      : _store(store), _id(std::move(bookie_id)), _clock(clock), _delay(lost_bookie_delay), _check(check) {}

  awaitable<result<void>> round();
  bool acting() const { return _acting; }

 private:
  awaitable<result<bool>> take_part();
  awaitable<result<void>> list_ledgers_of(const std::set<std::string>& lost);
  awaitable<result<void>> check_all_ledgers();
  // Lists each ledger for which `missing_of` names bookies; how many it listed.
  awaitable<result<std::size_t>> list_where(
      const std::function<awaitable<std::set<std::string>>(const ledger::ledger_metadata&)>& missing_of);

  meta::store& _store;
  std::string _id;
  base::clock& _clock;
  std::chrono::milliseconds _delay;
  periodic_check _check;
  std::optional<base::clock::time_point> _last_check;  // since this auditor acts
  std::optional<meta::session_id> _session;
  bool _acting = false;
  std::map<std::string, base::clock::time_point> _missing_since;
  std::set<std::string> _listed;  // lost bookies whose ledgers are listed
};

}  // namespace magnetar::autorecovery
