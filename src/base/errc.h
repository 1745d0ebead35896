// Errors that any library may report; library-specific ones live in each
// library's own errc (wire::errc, io::errc, ...). Values are stable: they are
// logged and may be compared by tests.
#pragma once

#include "base/error_category.h"

#include <string_view>
#include <system_error>

namespace magnetar::base {

enum class errc {
  ok = 0,
  invalid_argument,  // a caller passed a value outside the documented domain
  not_found,         // the named thing does not exist
  already_exists,    // create of something that exists
  timed_out,         // a deadline passed before the work finished
  cancelled,         // the caller or a shutdown cancelled the work
  shutting_down,     // the service is stopping and takes no new work
  io_error,          // the operating system failed a read, write or sync
  corrupt_data,      // stored or received bytes fail their checksum or format
  unsupported,       // a valid request this build does not implement
};

constexpr std::string_view category_name(errc) { return "magnetar.base"; }
std::string_view describe(errc e);

inline std::error_code make_error_code(errc e) { return make_enum_error_code(e); }

}  // namespace magnetar::base

template <>
struct std::is_error_code_enum<magnetar::base::errc> : std::true_type {};
