// Errors of the TLS library: settings that can't make a context.
#pragma once

#include "base/error_category.h"

#include <string_view>
#include <system_error>

namespace magnetar::tls {

enum class errc {
  ok = 0,
  bad_settings,  // a file that can't be read, a key that doesn't match, an unknown protocol
};

constexpr std::string_view category_name(errc) { return "magnetar.tls"; }
std::string_view describe(errc e);

inline std::error_code make_error_code(errc e) { return base::make_enum_error_code(e); }

}  // namespace magnetar::tls

template <>
struct std::is_error_code_enum<magnetar::tls::errc> : std::true_type {};
