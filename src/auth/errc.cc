#include "auth/errc.h"

namespace magnetar::auth {

std::string_view describe(errc e) {
  switch (e) {
    case errc::ok: return "success";
    case errc::bad_key: return "bad key";
    case errc::bad_token: return "bad token";
    case errc::expired_token: return "expired token";
    case errc::no_role: return "no role in the credentials";
    case errc::unknown_method: return "unknown authentication method";
    case errc::no_credentials: return "no credentials";
    case errc::bad_policies: return "bad authorization policies";
  }
  return "unknown authentication error";
}

}  // namespace magnetar::auth
