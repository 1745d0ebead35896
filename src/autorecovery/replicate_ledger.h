// replicate_ledger: what a replication worker does for one under-replicated
// ledger (BookKeeper's ReplicationWorker and LedgerFragmentReplicator).
//
// Each ensemble segment that names a bookie no longer registered gets a
// writable bookie in that place: the entries the lost bookie stored (those
// whose write set holds its place) are read from the segment's other bookies
// and written to the new one with recovery adds, in batches, many in flight;
// then the metadata names the new bookie (a versioned write: a ledger that
// changed meanwhile is tried again later). A segment whose bookies are all
// registered is left alone.
//
// An open ledger's metadata belongs to its writer (its ensemble changes are
// versioned writes too), so only closed ledgers are copied. When an open
// ledger's last segment names a lost bookie, its writer has the grace period
// to replace the bookie with its next add; after that the ledger is recovered
// (fenced and closed, as BookKeeper's openLedgerRereplicationGracePeriod
// does) and copied. One whose loss is in an earlier segment waits for its
// writer to close it.
// Coroutine; stateless.
#pragma once

#include "autorecovery/underreplication.h"
#include "ledger/bookie_client.h"
#include "ledger/ledger_client.h"

#include <chrono>
#include <cstddef>

namespace magnetar::autorecovery {

struct replicate_options {
  std::chrono::milliseconds open_ledger_grace{30'000};  // openLedgerRereplicationGracePeriod
  // Entries read and written per round trip: about batch_bytes of them (by the
  // ledger's average entry), at most batch_entries. Answers of megabytes cost
  // more to allocate and copy than the round trips they save (256 MiB of 16 KiB
  // entries: 85 MB/s in batches of 256, 190 MB/s in batches of 32, same sitting).
  std::size_t batch_entries = 256;
  std::size_t batch_bytes = 512 * 1024;
  std::size_t batches_in_flight = 8;  // reading some while writing others
};

enum class replicate_outcome {
  done,     // every segment has its replicas on registered bookies (or the ledger is gone)
  not_yet,  // an open ledger within its grace period, or no bookie to copy to: try later
};

awaitable<result<replicate_outcome>> replicate_ledger(ledger::ledger_client& ledgers, meta::store& store,
                                                      ledger::bookie_directory& bookies,
                                                      const underreplicated_ledger& listed, std::int64_t now_ms,
                                                      replicate_options options);

}  // namespace magnetar::autorecovery
