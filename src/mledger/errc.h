// Errors of the managed ledger and its cursors (Pulsar's ManagedLedgerException
// subclasses, where one fits). A ledger client or metadata store failure that the
// managed ledger cannot handle itself is passed through with its own code.
// Thread-safety: plain values and pure functions.
#pragma once

#include "base/error_category.h"

#include <string_view>
#include <system_error>

namespace magnetar::mledger {

enum class errc {
  ok = 0,
  closed,            // the managed ledger or cursor is closed (ManagedLedgerAlreadyClosedException)
  fenced,            // another owner changed the metadata: this one must stop (ManagedLedgerFencedException)
  invalid_position,  // a position the managed ledger never had (InvalidCursorPositionException)
  no_such_cursor,    // (CursorNotFoundException)
  cursor_exists,     // open_cursor of a name that is open with the other durability
  invalid_name,      // a managed ledger or cursor name that can't be a metadata path
  bad_metadata,      // stored managed ledger or cursor metadata that does not parse (MetaStoreException)
  no_ledger,         // no ledger to write to: creating one failed; the next add retries
  terminated,        // terminate() was called: no add is taken any more (ManagedLedgerTerminatedException)
};

constexpr std::string_view category_name(errc) { return "magnetar.mledger"; }
std::string_view describe(errc e);

inline std::error_code make_error_code(errc e) { return base::make_enum_error_code(e); }

}  // namespace magnetar::mledger

template <>
struct std::is_error_code_enum<magnetar::mledger::errc> : std::true_type {};
