// client: one blocking HTTP/1.1 request per call, for the admin CLI, the perf launcher
// and tests that talk to an admin REST API.
//
//   auto admin = http::url::parse("http://127.0.0.1:8080");
//   auto r = http::call(admin.value(), "PUT", "/admin/v2/tenants/t", R"({"allowedClusters":["standalone"]})");
//   if (r && r.value().status == 204) ...
//
// Each call opens a connection, sends the request (Content-Type: application/json when
// the body is not empty; Accept: application/json; Connection: close), reads the whole
// response and closes: callers send a handful of requests, or one a second, so keeping
// connections alive would buy nothing. One deadline bounds the whole exchange, name
// lookup included, so a hung server or resolver cannot stall the caller past it.
//
// Thread-safety: calls are independent and may run on any thread at once; each blocks
// its caller, so never make one on a shard thread.
#pragma once

#include "base/result.h"
#include "http/url.h"
#include "tls/settings.h"

#include <chrono>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace magnetar::http {

struct header_field {
  std::string name;  // as the server spelled it
  std::string value;
};

struct reply {
  int status = 0;
  std::string reason;  // the status line's text ("Not Found")
  std::string body;
  std::vector<header_field> headers;  // in the order received

  // The first header of that name, compared without case (field names are
  // case-insensitive); nullopt when there is none. Views into `headers`.
  std::optional<std::string_view> header(std::string_view name) const;
};

struct call_options {
  // From the call until the response's last byte: resolve, connect, write and read.
  std::chrono::milliseconds timeout{30'000};
  // Names the server in error details: "the admin API" gives "cannot connect to the admin
  // API at http://...". Empty: just the URL.
  std::string server_name;
  // A larger body fails the call (io_error) rather than growing the caller's memory.
  std::uint64_t body_limit = 64 * 1024 * 1024;
  // Redirects (301, 302, 307, 308 with an http[s]:// Location) followed, each with the
  // same method and body, as pulsar-admin follows a broker's 307 to a topic's owner; the
  // last reply is returned when more come. The deadline covers them all.
  int max_redirects = 0;
  // The Authorization header's value ("Bearer <token>"); empty: none.
  std::string authorization;
  // For https:// URLs: the trust, hostname verification and client certificate.
  tls::client_settings tls;
};

// Sends `method` (any token: "GET", "PUT", ...) for `where.prefix + target`.
// Fails only when no complete HTTP response came back: base::errc::timed_out past the
// deadline, io_error otherwise, the detail naming the stage, the URL and the request
// ("cannot connect to http://127.0.0.1:1: Connection refused (GET /x)"). An HTTP error
// status is a reply, not an error.
// A redirect to a Location that isn't an absolute http[s]:// URL is returned as it is.
result<reply> call(const url& where, std::string_view method, std::string_view target, std::string_view body = {},
                   const call_options& options = {});

}  // namespace magnetar::http
