#include "meta/errc.h"

namespace magnetar::meta {

std::string_view describe(errc e) {
  switch (e) {
    case errc::ok: return "success";
    case errc::invalid_path: return "invalid path";
    case errc::not_found: return "node not found";
    case errc::bad_version: return "bad version";
    case errc::not_empty: return "node has children";
    case errc::ephemeral_parent: return "ephemeral nodes cannot have children";
    case errc::unknown_session: return "unknown session";
    case errc::not_started: return "metadata store not started";
    case errc::corrupt_record: return "corrupt metadata record";
    case errc::backend_error: return "metadata backend error";
  }
  return "unknown meta error";
}

}  // namespace magnetar::meta
