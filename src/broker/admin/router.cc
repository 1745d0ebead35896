#include "broker/admin/router.h"

#include <fmt/format.h>

namespace magnetar::broker::admin {

void router::add(std::string method, std::string_view pattern, access who, handler fn) {
  _routes.push_back(
      route{.method = std::move(method), .pattern = path_pattern(pattern), .who = who, .fn = std::move(fn)});
}

const router::route* router::find(const std::vector<std::string>& path, const std::string& method,
                                  std::string* allow) const {
  const route* best = nullptr;
  for (const auto& r : _routes) {
    if (!r.pattern.matches(path)) continue;
    if (r.method != method) {
      if (allow->find(r.method) == std::string::npos) *allow += (allow->empty() ? "" : ", ") + r.method;
      continue;
    }
    if (best == nullptr || r.pattern.literals() > best->pattern.literals()) best = &r;
  }
  return best;
}

awaitable<http_response> router::dispatch(incoming_request request) const {
  std::string_view target = request.target;
  auto question = target.find('?');
  auto path = split_path(target.substr(0, question));
  if (!path) co_return error_response(400, fmt::format("Bad percent-escape in path '{}'", target.substr(0, question)));
  if (question != std::string_view::npos) {
    auto query = parse_query(target.substr(question + 1));
    if (!query) co_return error_response(400, "Bad percent-escape in query string");
    request.query = std::move(*query);
  }
  std::string allow;
  const route* r = find(*path, request.method, &allow);
  if (r == nullptr) {
    if (!allow.empty()) {
      auto response =
          error_response(405, fmt::format("Method {} not allowed here; allowed: {}", request.method, allow));
      response.allow = allow;
      co_return response;
    }
    co_return error_response(404, fmt::format("No such resource: {}", target.substr(0, question)));
  }
  r->pattern.bind(*path, request.params);
  if (_guard && r->who != access::anyone) {
    if (auto refused = co_await _guard(request, r->who)) co_return std::move(*refused);
  }
  co_return co_await r->fn(std::move(request));
}

}  // namespace magnetar::broker::admin
