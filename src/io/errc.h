// Errors of the io library: work refused because its service is stopping.
#pragma once

#include "base/error_category.h"

#include <string_view>
#include <system_error>

namespace magnetar::io {

enum class errc {
  ok = 0,
  gate_closed,   // the service is shutting down and admits no new work
  pool_stopped,  // the blocking pool was stopped before the call ran
};

constexpr std::string_view category_name(errc) { return "magnetar.io"; }
std::string_view describe(errc e);

inline std::error_code make_error_code(errc e) { return base::make_enum_error_code(e); }

}  // namespace magnetar::io

template <>
struct std::is_error_code_enum<magnetar::io::errc> : std::true_type {};
