// admin_http: the few blocking HTTP requests the launcher makes to a broker's admin REST
// API (topic stats every second, creating a namespace), on Boost.Beast.
//
//   auto admin = parse_http_url("http://127.0.0.1:8080");
//   auto reply = http_call(*admin, "GET", "/admin/v2/persistent/public/default/t/stats");
//
// One connection per request, closed after it; every step (resolve, connect, write,
// read) is bounded by the timeout, so a hung broker cannot stall the caller.
// Thread-safety: each call is independent; callable from any thread.
#pragma once

#include "base/result.h"

#include <chrono>
#include <cstdint>
#include <string>
#include <string_view>

namespace magnetar::perf {

struct http_endpoint {
  std::string host;
  std::uint16_t port = 80;
  std::string base_path;  // without a trailing '/', e.g. "" or "/pulsar"
};

struct http_reply {
  int status = 0;
  std::string body;
};

// "http://host[:port][/path]"; https is not supported (invalid_argument says so).
result<http_endpoint> parse_http_url(std::string_view url);

// Fails (io_error, naming the request) only when no HTTP response came back; an HTTP
// error status is a reply.
result<http_reply> http_call(const http_endpoint& endpoint, std::string_view method, std::string_view target,
                             std::string_view body = {},
                             std::chrono::milliseconds timeout = std::chrono::seconds(2));

// The admin path of a topic's stats: "persistent://t/ns/x" ->
// "/admin/v2/persistent/t/ns/x/stats". invalid_argument for a name that is not
// "<domain>://<tenant>/<namespace>/<local name>".
result<std::string> topic_stats_path(std::string_view topic);

// "persistent://t/ns/x" -> {"t", "ns"}.
struct topic_namespace {
  std::string tenant;
  std::string name;
};
result<topic_namespace> namespace_of(std::string_view topic);

}  // namespace magnetar::perf

namespace magnetar::perf {

// Creates the namespace of `topic` (PUT /admin/v2/namespaces/<tenant>/<namespace>) so that
// the workloads' topics can be created on first use: true when it was created, false when
// it existed (409). Any other answer fails with the status and the broker's message.
result<bool> ensure_namespace(const http_endpoint& admin, std::string_view topic);

}  // namespace magnetar::perf
