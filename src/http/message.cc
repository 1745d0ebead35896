#include "http/message.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cctype>

namespace magnetar::http {

const std::string& incoming_request::param(const std::string& name) const {
  static const std::string empty;
  auto it = params.find(name);
  return it == params.end() ? empty : it->second;
}

std::optional<std::string> incoming_request::query_value(const std::string& name) const {
  auto it = query.find(name);
  if (it == query.end()) return std::nullopt;
  return it->second;
}

bool incoming_request::query_flag(const std::string& name, bool otherwise) const {
  auto value = query_value(name);
  if (!value) return otherwise;
  std::string lower = *value;
  std::transform(lower.begin(), lower.end(), lower.begin(), [](unsigned char c) { return std::tolower(c); });
  return lower.empty() || lower == "true";
}

http_response no_content() { return http_response{.status = 204}; }

http_response json_response(int status, std::string body) {
  return http_response{.status = status, .body = std::move(body), .content_type = "application/json"};
}

http_response error_response(int status, std::string_view reason) {
  nlohmann::json body{{"reason", std::string(reason)}};
  // Replace rather than throw on invalid UTF-8 in a reason that echoes user input.
  return json_response(status, body.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace));
}

http_response text_response(int status, std::string body, std::string content_type) {
  return http_response{.status = status, .body = std::move(body), .content_type = std::move(content_type)};
}

}  // namespace magnetar::http
