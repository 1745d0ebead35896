// ledger_checker: which bookies of a ledger's ensembles no longer hold their
// share of its entries (BookKeeper's LedgerChecker, as its auditor's periodic
// check of every ledger runs it).
//
// For each segment (a run of entries on one ensemble) and each place in its
// ensemble, the bookie there is asked for the first and the last entry of the
// segment that its place stores. A bookie that answers "no such entry", "no
// such ledger" or "deleted" misses that share; one that can't be reached is not judged here
// (a bookie that is gone is the auditor's lost-bookie check's to find).
// Only a closed ledger is checked whole: an open one's entries past what
// its writer confirmed may rightly be missing.
// Coroutines on any executor; no state.
#pragma once

#include "base/result.h"
#include "io/asio.h"
#include "ledger/bookie_client.h"
#include "ledger/ledger_metadata.h"

#include <cstdint>
#include <set>
#include <string>

namespace magnetar::autorecovery {

// The bookies that miss entries of theirs in [first, last], which is within
// the segment that starts at `segment_first`.
awaitable<std::set<std::string>> bookies_missing_entries(ledger::bookie_directory& bookies,
                                                         const ledger::ledger_metadata& m, std::int64_t segment_first,
                                                         std::int64_t last);

// The same for a closed ledger, segment by segment (nobody, for an open one).
awaitable<std::set<std::string>> bookies_missing_entries(ledger::bookie_directory& bookies,
                                                         const ledger::ledger_metadata& m);

}  // namespace magnetar::autorecovery
