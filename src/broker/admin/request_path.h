// request_path: the pure half of admin routing. A request target's path and query
// decoded, and path patterns ("/admin/v2/tenants/{tenant}") matched against a path.
// No I/O and no coroutines, so the admin request fuzzer runs it as the router does.
// Thread-safety: values; a path_pattern may be read from any thread.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace magnetar::broker::admin {

// Percent-decodes `text` ('+' stays '+': it is a path, not a form); nullopt on a bad escape.
std::optional<std::string> percent_decode(std::string_view text);
// "a=1&b=x%20y&flag" -> {a: 1, b: "x y", flag: ""}; nullopt on a bad escape.
std::optional<std::map<std::string, std::string>> parse_query(std::string_view query);
// "/a/b%2Fc/" -> {"a", "b/c"}: segments split on '/' then decoded; empty segments dropped.
std::optional<std::vector<std::string>> split_path(std::string_view path);

// Literal segments and {params}, as "/admin/v2/namespaces/{tenant}/{namespace}".
class path_pattern {
 public:
  explicit path_pattern(std::string_view pattern);

  // Same number of segments, and every literal one equal.
  bool matches(const std::vector<std::string>& path) const;
  // The params of a path it matches, added to `params` by name.
  void bind(const std::vector<std::string>& path, std::map<std::string, std::string>& params) const;
  // Literal segments: where several patterns match, the one with more wins.
  int literals() const { return _literals; }

 private:
  std::vector<std::string> _segments;  // "{name}" marks a parameter
  int _literals = 0;
};

}  // namespace magnetar::broker::admin
