#include "broker/admin/router.h"

#include <fmt/format.h>

namespace magnetar::broker::admin {

namespace {

int hex_value(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

bool is_param(const std::string& segment) {
  return segment.size() >= 2 && segment.front() == '{' && segment.back() == '}';
}

}  // namespace

std::optional<std::string> percent_decode(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (std::size_t i = 0; i < text.size(); ++i) {
    if (text[i] != '%') {
      out.push_back(text[i]);
      continue;
    }
    if (i + 2 >= text.size()) return std::nullopt;
    int high = hex_value(text[i + 1]);
    int low = hex_value(text[i + 2]);
    if (high < 0 || low < 0) return std::nullopt;
    out.push_back(static_cast<char>(high * 16 + low));
    i += 2;
  }
  return out;
}

std::optional<std::map<std::string, std::string>> parse_query(std::string_view query) {
  std::map<std::string, std::string> out;
  std::size_t start = 0;
  while (start <= query.size()) {
    auto end = query.find('&', start);
    if (end == std::string_view::npos) end = query.size();
    auto pair = query.substr(start, end - start);
    if (!pair.empty()) {
      auto equals = pair.find('=');
      auto key = percent_decode(pair.substr(0, equals));
      auto value = percent_decode(equals == std::string_view::npos ? std::string_view{} : pair.substr(equals + 1));
      if (!key || !value) return std::nullopt;
      out[*key] = *value;
    }
    start = end + 1;
  }
  return out;
}

std::optional<std::vector<std::string>> split_path(std::string_view path) {
  std::vector<std::string> out;
  std::size_t start = 0;
  while (start <= path.size()) {
    auto end = path.find('/', start);
    if (end == std::string_view::npos) end = path.size();
    auto raw = path.substr(start, end - start);
    if (!raw.empty()) {
      auto decoded = percent_decode(raw);
      if (!decoded) return std::nullopt;
      out.push_back(std::move(*decoded));
    }
    start = end + 1;
  }
  return out;
}

void router::add(std::string method, std::string_view pattern, access who, handler fn) {
  route r{.method = std::move(method), .segments = *split_path(pattern), .who = who, .fn = std::move(fn)};
  for (const auto& segment : r.segments) r.literals += is_param(segment) ? 0 : 1;
  _routes.push_back(std::move(r));
}

const router::route* router::find(const std::vector<std::string>& path, const std::string& method,
                                  std::string* allow) const {
  const route* best = nullptr;
  for (const auto& r : _routes) {
    if (r.segments.size() != path.size()) continue;
    bool matches = true;
    for (std::size_t i = 0; i < path.size() && matches; ++i) {
      matches = is_param(r.segments[i]) || r.segments[i] == path[i];
    }
    if (!matches) continue;
    if (r.method != method) {
      if (allow->find(r.method) == std::string::npos) *allow += (allow->empty() ? "" : ", ") + r.method;
      continue;
    }
    if (best == nullptr || r.literals > best->literals) best = &r;
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
  for (std::size_t i = 0; i < path->size(); ++i) {
    const auto& segment = r->segments[i];
    if (is_param(segment)) request.params[segment.substr(1, segment.size() - 2)] = (*path)[i];
  }
  if (_guard && r->who != access::anyone) {
    if (auto refused = co_await _guard(request, r->who)) co_return std::move(*refused);
  }
  co_return co_await r->fn(std::move(request));
}

}  // namespace magnetar::broker::admin
