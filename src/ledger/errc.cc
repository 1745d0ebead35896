#include "ledger/errc.h"

namespace magnetar::ledger {

std::string_view describe(errc e) {
  switch (e) {
    case errc::ok: return "success";
    case errc::no_such_ledger: return "no such ledger";
    case errc::ledger_closed: return "ledger closed";
    case errc::ledger_fenced: return "ledger fenced";
    case errc::not_enough_bookies: return "not enough bookies";
    case errc::write_failed: return "write failed";
    case errc::read_failed: return "read failed";
    case errc::no_such_entry: return "no such entry";
    case errc::entry_beyond_last: return "entry beyond the last";
    case errc::bad_metadata: return "bad ledger metadata";
    case errc::invalid_config: return "invalid ledger configuration";
    case errc::bad_entry: return "bad entry";
  }
  return "unknown ledger error";
}

}  // namespace magnetar::ledger
