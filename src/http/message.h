// http_message: the request and response values that cross the HTTP server, the
// admin router and its handlers, free of Beast so that handlers and tests need no Beast headers.
//
// Plain value types; not shared between threads unless copied.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <string_view>

namespace magnetar::http {

struct incoming_request {
  std::string method;  // "GET", "PUT", ... as sent
  std::string target;  // "/admin/v2/tenants?x=1", undecoded
  std::string body;
  std::string content_type;
  std::optional<std::string> authorization;  // the Authorization header, when sent
  // Who sent it, once the server's owner authenticated it (a role); nullopt: nobody.
  std::optional<std::string> principal;
  bool secure = false;  // came in over TLS (an https:// server)
  // Filled by the router: the path's {params} (percent-decoded) and the query.
  std::map<std::string, std::string> params;
  std::map<std::string, std::string> query;

  const std::string& param(const std::string& name) const;
  std::optional<std::string> query_value(const std::string& name) const;
  // "true" (any case) or an empty value ("?force") are true; absent is `otherwise`.
  bool query_flag(const std::string& name, bool otherwise = false) const;
};

struct http_response {
  int status = 200;
  std::string body;
  std::string content_type;  // empty when there is no body
  std::string allow;         // the Allow header of a 405
  std::string location;      // the Location header of a redirect (307)
};

// 204 No Content: what Pulsar answers to a PUT, POST or DELETE that succeeded.
http_response no_content();
// `body` is already JSON text.
http_response json_response(int status, std::string body);
// {"reason": "<reason>"}, as Pulsar's RestException renders an error.
http_response error_response(int status, std::string_view reason);
http_response text_response(int status, std::string body, std::string content_type = "text/plain; charset=utf-8");

}  // namespace magnetar::http
