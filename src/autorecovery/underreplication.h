// underreplication: the metadata store's list of ledgers that lack replicas
// (BookKeeper's under-replication manager), shared by the auditor that fills
// it, the workers that empty it and the tools that show it.
//
//   /ledgers/underreplication/ledgers/L<id>  {"ledgerId", "missingReplicas": [bookie ids], "ctime"}
//   /ledgers/underreplication/locks/L<id>    ephemeral: a worker is copying that ledger
//   /ledgers/underreplication/auditor        ephemeral: the auditor's bookie id
//
// (Upstream nests the ledger nodes in a hex hierarchy; one flat level reads
// the same way here.) Registered bookies, as the auditor and workers count
// them, are the writable and the read-only ones under /ledgers/available:
// both still hold their data.
// Coroutines on any executor; no state.
#pragma once

#include "base/ids.h"
#include "base/result.h"
#include "io/asio.h"
#include "meta/store.h"

#include <cstdint>
#include <set>
#include <string>
#include <vector>

namespace magnetar::autorecovery {

inline constexpr const char* underreplicated_path = "/ledgers/underreplication/ledgers";
inline constexpr const char* locks_path = "/ledgers/underreplication/locks";
inline constexpr const char* auditor_path = "/ledgers/underreplication/auditor";

struct underreplicated_ledger {
  ledger_id id;
  std::set<std::string> missing;  // bookies that held replicas and are gone
  std::int64_t marked_ms = 0;     // when the auditor listed it
};

// Lists the ledger, or adds bookies to its missing set when it is listed.
awaitable<result<void>> mark_underreplicated(meta::store& store, ledger_id ledger, const std::set<std::string>& missing,
                                             std::int64_t now_ms);
awaitable<result<std::vector<underreplicated_ledger>>> list_underreplicated(meta::store& store);
awaitable<result<void>> mark_replicated(meta::store& store, ledger_id ledger);

// The writable and read-only bookies registered now.
awaitable<result<std::set<std::string>>> registered_bookies(meta::store& store);

}  // namespace magnetar::autorecovery
