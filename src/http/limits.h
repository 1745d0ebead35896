// limits: the HTTP server's default bounds on one request (http_server::options), in a
// header of their own so that code without the server (the admin request fuzzer) can
// parse with the same ones.
#pragma once

#include <cstddef>

namespace magnetar::http {

inline constexpr std::size_t default_max_body_bytes = 5 * 1024 * 1024;  // larger: 413
inline constexpr std::size_t default_max_header_bytes = 64 * 1024;      // larger: 431

}  // namespace magnetar::http
