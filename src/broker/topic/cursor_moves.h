// cursor_moves: positions counted in entries over a managed ledger's chain of ledgers,
// and acknowledging on a cursor's behalf, for the policies that move cursors which no
// consumer moved (message TTL, backlog-quota eviction).
// On the topic's shard; not thread-safe (as the managed ledger).
#pragma once

#include "base/result.h"
#include "mledger/managed_cursor.h"
#include "mledger/managed_ledger.h"
#include "mledger/position.h"

#include <cstdint>
#include <string_view>

namespace magnetar::broker {

class topic;

// The deduplication snapshot's cursor (upstream's name): a cursor that is not a
// subscription, so it is left out of subscriptions, backlogs and expiry.
inline constexpr std::string_view dedup_cursor_name = "pulsar.dedup";
// Geo-replication's cursors are named with this prefix (upstream's replicatorPrefix);
// no client may subscribe under it.
inline constexpr std::string_view replicator_prefix = "pulsar.repl";

// The last entry before `p`; earliest() when there is none.
mledger::position entry_before(const mledger::managed_ledger& ml, mledger::position p);
// The `n`-th entry after `from` (n >= 1), or the last entry when there are fewer.
mledger::position entry_after(const mledger::managed_ledger& ml, mledger::position from, std::uint64_t n);

// The subscriptions' cursors: durable or not, without the deduplication cursor.
std::vector<mledger::managed_cursor*> subscription_cursors(const mledger::managed_ledger& ml);

// Acknowledges everything up to `p` on the cursor: through its subscription when the
// topic has one (so its consumers' unacked counts follow), else on the cursor itself.
result<void> acknowledge_upto(topic& t, mledger::managed_cursor& cursor, mledger::position p);

}  // namespace magnetar::broker
