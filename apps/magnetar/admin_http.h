// admin_http: the `magnetar admin` command's HTTP client for the admin REST API.
//
// One blocking request per call over a fresh connection (Boost.Beast, HTTP/1.1), with
// a deadline for connect, write and read together. A CLI sends a handful of requests,
// so keeping connections alive would buy nothing. (The admin REST layer has its own
// client for tests; this one keeps the CLI free of the broker's libraries.)
// Thread-safety: the functions are independent; an admin_url is a plain value.
#pragma once

#include <chrono>
#include <cstdint>
#include <string>
#include <string_view>

#include "base/result.h"

namespace magnetar::app {

// http://host[:port][/prefix]: where the admin API listens.
struct admin_url {
  std::string host;           // without IPv6 brackets
  std::uint16_t port = 8080;  // 8080 when the URL names none, as Pulsar's default
  std::string prefix;         // path in front of /admin/v2/..., without a trailing slash

  // base::errc::invalid_argument naming what is wrong; https is refused (no TLS here).
  static result<admin_url> parse(std::string_view text);
  std::string to_string() const;
};

struct http_reply {
  unsigned status = 0;
  std::string reason;  // the status line's text ("Not Found")
  std::string body;
};

// Sends `method target` with `body` as application/json when it is not empty. Fails
// (with the URL in the detail) only when no HTTP response came back; an HTTP error
// status is a reply.
result<http_reply> http_call(const admin_url& url, std::string_view method, std::string_view target,
                             std::string_view body = {}, std::chrono::milliseconds timeout = std::chrono::seconds(30));

// `text` with everything but RFC 3986's unreserved characters percent-encoded: one path
// segment (a subscription name may hold '/', '?', '#' or spaces).
std::string encode_path_segment(std::string_view text);

}  // namespace magnetar::app
