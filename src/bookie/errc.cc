#include "bookie/errc.h"

namespace magnetar::bookie {

std::string_view describe(errc e) {
  switch (e) {
    case errc::ok: return "success";
    case errc::entry_not_found: return "no such entry";
    case errc::ledger_not_found: return "no such ledger";
    case errc::ledger_fenced: return "ledger fenced";
    case errc::ledger_deleted: return "ledger deleted";
    case errc::corrupt_record: return "corrupt record";
    case errc::journal_failed: return "journal failed";
    case errc::storage_full: return "storage full";
    case errc::too_large: return "entry too large";
    case errc::index_failed: return "entry index failed";
  }
  return "unknown bookie error";
}

}  // namespace magnetar::bookie
