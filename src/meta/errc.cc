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
    case errc::connection_lost: return "metadata store connection lost; outcome unknown";
    case errc::session_expired: return "metadata store session expired";
    case errc::value_too_large: return "value too large for the metadata store";
    case errc::unavailable: return "metadata store unavailable";
  }
  return "unknown meta error";
}

}  // namespace magnetar::meta
