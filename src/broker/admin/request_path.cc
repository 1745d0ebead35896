#include "broker/admin/request_path.h"

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

path_pattern::path_pattern(std::string_view pattern) : _segments(split_path(pattern).value()) {
  for (const auto& segment : _segments) _literals += is_param(segment) ? 0 : 1;
}

bool path_pattern::matches(const std::vector<std::string>& path) const {
  if (_segments.size() != path.size()) return false;
  for (std::size_t i = 0; i < path.size(); ++i) {
    if (!is_param(_segments[i]) && _segments[i] != path[i]) return false;
  }
  return true;
}

void path_pattern::bind(const std::vector<std::string>& path, std::map<std::string, std::string>& params) const {
  for (std::size_t i = 0; i < _segments.size() && i < path.size(); ++i) {
    const auto& segment = _segments[i];
    if (is_param(segment)) params[segment.substr(1, segment.size() - 2)] = path[i];
  }
}

}  // namespace magnetar::broker::admin
