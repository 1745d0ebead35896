#include "wire/errc.h"

namespace magnetar::wire {

std::string_view describe(errc e) {
  switch (e) {
    case errc::ok: return "success";
    case errc::frame_too_large: return "frame too large";
    case errc::malformed_frame: return "malformed frame";
    case errc::bad_command: return "bad command";
    case errc::unknown_command: return "unknown command";
    case errc::bad_metadata: return "bad message metadata";
    case errc::checksum_mismatch: return "checksum mismatch";
    case errc::invalid_topic_name: return "invalid topic name";
  }
  return "unknown wire error";
}

}  // namespace magnetar::wire
