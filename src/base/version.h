// The release this binary was built from, as CONNECTED's server_version and
// `magnetar version` report it.
#pragma once

#include <string_view>

namespace magnetar::base {

// "0.1.0"
std::string_view version();
// "magnetar 0.1.0 (RelWithDebInfo, g++ 12.2.0)"
std::string_view version_banner();

}  // namespace magnetar::base
