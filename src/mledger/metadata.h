// What a managed ledger keeps in the metadata store (Pulsar's ManagedLedgerInfo and
// ManagedCursorInfo), as JSON:
//
//   /managed-ledgers/<name>           {"ledgers": [{"id": 7, "entries": 50000, "size": 5000000,
//                                                    "timestamp_ms": 1700000000000}, ...],
//                                      "properties": {...}, "terminated_at": [7, 49999]}
//   /managed-ledgers/<name>/<cursor>  {"mark_delete": [7, 41], "individually_deleted": "<hex>",
//                                      "ranges_dropped": 0, "properties": {...}}
//
// The last ledger of the list is the one being written; its entries and size are 0
// until it is closed, and whoever opens the managed ledger next recovers it to learn
// them, unless the managed ledger is terminated (`terminated_at`, present only then: the
// last entry it will ever hold, upstream's terminatedPosition): terminate() closed the
// last ledger, and no ledger is written after it. `individually_deleted` is
// range_set::serialize() in hex. Every update names the
// version it read (compare-and-set), so a second owner fails instead of clobbering.
// Plain value types and pure functions; thread-safe.
#pragma once

#include "base/ids.h"
#include "base/result.h"
#include "mledger/position.h"
#include "mledger/range_set.h"

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace magnetar::mledger {

struct ledger_info {
  ledger_id id;
  std::uint64_t entries = 0;
  std::uint64_t size = 0;
  // Wall-clock ms when the ledger was closed (created, for the open one): retention's age.
  std::int64_t timestamp_ms = 0;

  friend bool operator==(const ledger_info&, const ledger_info&) = default;
};

struct managed_ledger_info {
  std::vector<ledger_info> ledgers;  // ascending ids; the last one is being written
  std::map<std::string, std::string> properties;
  std::optional<position> terminated_at;

  friend bool operator==(const managed_ledger_info&, const managed_ledger_info&) = default;
};

struct cursor_info {
  position mark_delete;
  range_set individually_deleted;
  std::size_t ranges_dropped = 0;  // acks beyond the persisted bound: redelivered after recovery
  std::map<std::string, std::string> properties;
  // Batches partly acknowledged (upstream's batchDeletedIndexes): per entry, the bit set
  // of its messages still unacknowledged, as the protocol's ack_set carries it.
  std::map<position, std::vector<std::int64_t>> batch_ack_sets;

  friend bool operator==(const cursor_info&, const cursor_info&) = default;
};

std::string to_json(const managed_ledger_info& info);
result<managed_ledger_info> managed_ledger_info_from_json(std::string_view text);

// At most `max_ranges` individually deleted ranges are written (see range_set::serialize).
std::string to_json(const cursor_info& info, std::size_t max_ranges);
result<cursor_info> cursor_info_from_json(std::string_view text);

// "/managed-ledgers/<name>"; the name may hold '/' (tenant/namespace/domain/topic).
std::string managed_ledger_path(std::string_view name);
std::string cursor_path(std::string_view managed_ledger, std::string_view cursor);
// errc::invalid_name unless the name makes a valid node path (and, for a cursor, one
// level under its managed ledger).
result<void> check_managed_ledger_name(std::string_view name);
result<void> check_cursor_name(std::string_view name);

}  // namespace magnetar::mledger
