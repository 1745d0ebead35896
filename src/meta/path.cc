#include "meta/path.h"

#include "meta/errc.h"

#include <fmt/format.h>

namespace magnetar::meta {
namespace {

// NUL bytes would end the quoted path early in a log line; show them.
std::string printable(std::string_view path) {
  std::string out;
  for (char c : path) {
    if (c == '\0') {
      out += "\\0";
    } else {
      out += c;
    }
  }
  return out;
}

auto invalid(std::string_view path, std::string_view rule) {
  return fail(errc::invalid_path, fmt::format("path '{}' {}", printable(path), rule));
}

}  // namespace

result<void> check_path(std::string_view path) {
  if (path.empty()) return fail(errc::invalid_path, "empty path");
  if (path.front() != '/') return invalid(path, "does not start with '/'");
  if (path == "/") return success();
  if (path.back() == '/') return invalid(path, "ends with '/'");
  if (path.find('\0') != std::string_view::npos) return invalid(path, "contains a NUL byte");
  std::size_t start = 1;
  while (start <= path.size()) {
    auto end = path.find('/', start);
    if (end == std::string_view::npos) end = path.size();
    auto component = path.substr(start, end - start);
    if (component.empty()) return invalid(path, "has an empty component");
    if (component == "." || component == "..") return invalid(path, "has a '.' or '..' component");
    start = end + 1;
  }
  return success();
}

result<void> check_node_path(std::string_view path) {
  if (path == "/") return invalid(path, "is the root, which can't be written or removed");
  return check_path(path);
}

result<void> check_sequential_prefix(std::string_view prefix) {
  // The counter completes the last component, so "/q/" is a valid prefix.
  auto candidate = std::string(prefix) + std::string(sequence_digits, '0');
  if (auto checked = check_node_path(candidate); !checked) {
    return fail(errc::invalid_path,
                fmt::format("sequential prefix '{}': {}", printable(prefix), checked.error().detail()));
  }
  return success();
}

std::string_view parent_of(std::string_view path) {
  auto slash = path.rfind('/');
  return slash == 0 ? path.substr(0, 1) : path.substr(0, slash);
}

std::string_view name_of(std::string_view path) { return path.substr(path.rfind('/') + 1); }

std::string child_path(std::string_view parent, std::string_view name) {
  if (parent == "/") return fmt::format("/{}", name);
  return fmt::format("{}/{}", parent, name);
}

std::string sequential_path(std::string_view prefix, std::int64_t counter) {
  return fmt::format("{}{:0{}}", prefix, counter, sequence_digits);
}

std::size_t depth_of(std::string_view path) {
  if (path == "/") return 0;
  std::size_t depth = 0;
  for (char c : path) depth += c == '/' ? 1 : 0;
  return depth;
}

}  // namespace magnetar::meta
