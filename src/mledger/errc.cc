#include "mledger/errc.h"

namespace magnetar::mledger {

std::string_view describe(errc e) {
  switch (e) {
    case errc::ok: return "success";
    case errc::closed: return "managed ledger closed";
    case errc::fenced: return "managed ledger fenced";
    case errc::invalid_position: return "invalid position";
    case errc::no_such_cursor: return "no such cursor";
    case errc::cursor_exists: return "cursor exists";
    case errc::invalid_name: return "invalid name";
    case errc::bad_metadata: return "bad managed ledger metadata";
    case errc::no_ledger: return "no ledger to write to";
    case errc::terminated: return "managed ledger terminated";
  }
  return "unknown managed ledger error";
}

}  // namespace magnetar::mledger
