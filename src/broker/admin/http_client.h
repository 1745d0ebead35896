// http_client: one blocking HTTP/1.1 request, for the admin CLI and for tests.
//
//   auto r = http_request("127.0.0.1", 8080, "PUT", "/admin/v2/tenants/t", R"({"allowedClusters":["standalone"]})");
//   if (r && r->status == 204) ...
//
// Opens a connection, sends one request (Content-Type: application/json when there is a
// body), reads the whole response and closes. Fails (io errors, with the address in the
// detail) only when no HTTP response came back; an HTTP error status is a response.
// Thread-safety: each call is independent; never call it on a shard thread (it blocks).
#pragma once

#include "base/result.h"
#include "broker/admin/http_message.h"

#include <chrono>
#include <cstdint>
#include <string>
#include <string_view>

namespace magnetar::broker::admin {

struct http_client_options {
  std::chrono::milliseconds timeout{30'000};  // for the whole exchange
  std::string content_type = "application/json";
};

result<http_response> http_request(std::string_view host, std::uint16_t port, std::string_view method,
                                   std::string_view target, std::string_view body = {},
                                   const http_client_options& options = {});

}  // namespace magnetar::broker::admin
