// Errors of authentication (why a credential was not taken; the broker answers them as
// Pulsar's AuthenticationError on the binary protocol, 401 in the admin API) and of
// authorization's inputs (policies of the wrong shape).
#pragma once

#include "base/error_category.h"

#include <string_view>
#include <system_error>

namespace magnetar::auth {

enum class errc {
  ok = 0,
  bad_key,         // a configured or given key can't be read or parsed
  bad_token,       // not a token, a bad signature, an algorithm the key doesn't sign with
  expired_token,   // past its exp claim
  no_role,         // a valid token without the claim that names the role
  unknown_method,  // an authentication method no configured provider takes
  no_credentials,  // none given where they are required
  bad_policies,    // a namespace's auth_policies or a permission list of the wrong shape
};

constexpr std::string_view category_name(errc) { return "magnetar.auth"; }
std::string_view describe(errc e);

inline std::error_code make_error_code(errc e) { return base::make_enum_error_code(e); }

}  // namespace magnetar::auth

template <>
struct std::is_error_code_enum<magnetar::auth::errc> : std::true_type {};
