#include "tls/errc.h"

namespace magnetar::tls {

std::string_view describe(errc e) {
  switch (e) {
    case errc::ok: return "success";
    case errc::bad_settings: return "bad TLS settings";
  }
  return "unknown TLS error";
}

}  // namespace magnetar::tls
