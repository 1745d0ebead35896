// ledger_metadata: what the metadata store knows of a ledger (BookKeeper's
// LedgerMetadata), stored as JSON at /ledgers/L<id>.
//
// The ensemble may change as bookies fail: `ensembles` maps the first entry
// written to an ensemble to that ensemble's bookie ids. A plain value type.
#pragma once

#include "base/ids.h"
#include "base/result.h"

#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace magnetar::ledger {

enum class ledger_state { open, in_recovery, closed };

struct ledger_metadata {
  ledger_id id;
  int ensemble_size = 1;
  int write_quorum = 1;
  int ack_quorum = 1;
  ledger_state state = ledger_state::open;
  entry_id last_entry{-1};   // when closed: the last entry of the ledger
  std::uint64_t length = 0;  // when closed: payload bytes of all entries
  int entry_format = 0;      // what precedes each payload on the bookies (entry_header.h); 0: nothing
  std::map<std::int64_t, std::vector<std::string>> ensembles;  // first entry -> bookie ids
  std::int64_t created_ms = 0;
  std::map<std::string, std::string> custom;  // the creator's notes (e.g. the managed ledger's name)

  // The ensemble that holds `entry`.
  const std::vector<std::string>& ensemble_for(entry_id entry) const;
  // The bookies (indexes into the ensemble) that store `entry`, in order.
  std::vector<std::string> write_set(entry_id entry) const;
  // The same as a bit per ensemble place (E <= 64: the ledger client's limit).
  std::uint64_t write_set_positions(entry_id entry) const;

  friend bool operator==(const ledger_metadata&, const ledger_metadata&) = default;
};

std::string to_json(const ledger_metadata& metadata);
result<ledger_metadata> ledger_metadata_from_json(std::string_view text);

// /ledgers/L0000000042
std::string ledger_path(ledger_id id);

}  // namespace magnetar::ledger
