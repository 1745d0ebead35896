#include "io/errc.h"

namespace magnetar::io {

std::string_view describe(errc e) {
  switch (e) {
    case errc::ok: return "success";
    case errc::gate_closed: return "shutting down: no new work is admitted";
    case errc::pool_stopped: return "the blocking pool has stopped";
  }
  return "unknown io error";
}

}  // namespace magnetar::io
