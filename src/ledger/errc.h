// Errors of the ledger client (BookKeeper's BKException codes, where one fits).
#pragma once

#include "base/error_category.h"

#include <string_view>
#include <system_error>

namespace magnetar::ledger {

enum class errc {
  ok = 0,
  no_such_ledger,      // no metadata for the ledger id
  ledger_closed,       // an add to a closed ledger
  ledger_fenced,       // another client recovered the ledger: this writer must stop
  not_enough_bookies,  // fewer bookies available than the ensemble needs
  write_failed,        // an add did not reach its ack quorum; the writer takes no more adds
  read_failed,         // no bookie of the write set could serve the entry
  no_such_entry,       // every bookie of the write set answered that it has no such entry
  entry_beyond_last,   // a read past the last confirmed entry
  bad_metadata,        // stored ledger metadata that does not parse
  invalid_config,      // ensemble, write and ack quorum sizes that do not fit
  bad_entry,           // a stored entry too short for its ledger's entry header
};

constexpr std::string_view category_name(errc) { return "magnetar.ledger"; }
std::string_view describe(errc e);

inline std::error_code make_error_code(errc e) { return base::make_enum_error_code(e); }

}  // namespace magnetar::ledger

template <>
struct std::is_error_code_enum<magnetar::ledger::errc> : std::true_type {};
