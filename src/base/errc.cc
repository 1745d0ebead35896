#include "base/errc.h"

namespace magnetar::base {

std::string_view describe(errc e) {
  switch (e) {
    case errc::ok: return "success";
    case errc::invalid_argument: return "invalid argument";
    case errc::not_found: return "not found";
    case errc::already_exists: return "already exists";
    case errc::timed_out: return "timed out";
    case errc::cancelled: return "cancelled";
    case errc::shutting_down: return "shutting down";
    case errc::io_error: return "I/O error";
    case errc::corrupt_data: return "corrupt data";
    case errc::unsupported: return "unsupported";
  }
  return "unknown base error";
}

}  // namespace magnetar::base
