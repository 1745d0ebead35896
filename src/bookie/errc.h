// Errors of the bookie: what a ledger operation can answer besides success.
// The values mirror BookKeeper's return codes where one exists.
#pragma once

#include "base/error_category.h"

#include <string_view>
#include <system_error>

namespace magnetar::bookie {

enum class errc {
  ok = 0,
  entry_not_found,   // no such entry in the ledger (BK NoSuchEntry)
  ledger_not_found,  // the bookie never stored the ledger (BK NoSuchLedgerExists)
  ledger_fenced,     // the ledger was fenced: no more adds (BK LedgerFenced)
  ledger_deleted,    // the ledger was deleted
  corrupt_record,    // a stored record failed its checksum or format
  journal_failed,    // the journal could not write or sync; the bookie is read-only
  storage_full,      // the disk has no space for more entries; reads still work
  too_large,         // an entry larger than the configured maximum
  index_failed,      // the entry index (RocksDB) failed a read or write; its status is in the detail
};

constexpr std::string_view category_name(errc) { return "magnetar.bookie"; }
std::string_view describe(errc e);

inline std::error_code make_error_code(errc e) { return base::make_enum_error_code(e); }

}  // namespace magnetar::bookie

template <>
struct std::is_error_code_enum<magnetar::bookie::errc> : std::true_type {};
