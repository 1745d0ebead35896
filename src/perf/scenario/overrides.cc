#include "perf/scenario/overrides.h"

#include "perf/scenario/yaml_scalar.h"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <optional>
#include <system_error>
#include <utility>
#include <vector>

namespace magnetar::perf {
namespace {

namespace fs = std::filesystem;

constexpr std::string_view environment_prefixes[] = {"MAGNETAR_PERF_", "PULSAR_PERFORMANCE_"};

std::vector<std::string> split(std::string_view text, char separator) {
  std::vector<std::string> parts;
  std::size_t start = 0;
  while (true) {
    const auto at = text.find(separator, start);
    parts.emplace_back(text.substr(start, at == std::string_view::npos ? std::string_view::npos : at - start));
    if (at == std::string_view::npos) break;
    start = at + 1;
  }
  return parts;
}

std::string lower_without_underscores(std::string_view text) {
  std::string out;
  for (char c : text) {
    if (c != '_') out.push_back(static_cast<char>(std::tolower(static_cast<unsigned char>(c))));
  }
  return out;
}

std::string_view kind_of_node(const YAML::Node& node) {
  if (node.IsMap()) return "a mapping";
  if (node.IsSequence()) return "a list";
  if (node.IsNull()) return "null";
  return "a scalar";
}

// The key of `mapping` that the tokens from `first` on name, taking the most tokens a key
// matches; returns the key and the tokens it took.
std::optional<std::pair<std::string, std::size_t>> match_key(const YAML::Node& mapping,
                                                             const std::vector<std::string>& tokens,
                                                             std::size_t first) {
  std::optional<std::pair<std::string, std::size_t>> found;
  std::string candidate;
  for (std::size_t i = first; i < tokens.size(); ++i) {
    candidate += tokens[i];
    for (const auto& entry : mapping) {
      const std::string& key = entry.first.Scalar();
      if (lower_without_underscores(key) == candidate) found = std::pair{key, i - first + 1};
    }
  }
  return found;
}

}  // namespace

result<fs::path> find_overlay(const fs::path& spec, const fs::path& scenario_dir) {
  std::vector<fs::path> bases;
  if (spec.is_absolute()) {
    bases.push_back(spec);
  } else {
    bases.push_back(spec);
    bases.push_back(scenario_dir / spec);
    bases.push_back(scenario_dir / "configs" / spec);
  }
  std::vector<fs::path> tried;
  for (const auto& base : bases) {
    tried.push_back(base);
    const auto ext = base.extension();
    if (ext != ".yaml" && ext != ".yml") tried.push_back(fs::path(base.string() + ".yaml"));
  }
  std::error_code ec;
  for (const auto& candidate : tried) {
    if (fs::is_regular_file(candidate, ec)) return candidate;
  }
  std::string places;
  for (const auto& candidate : tried) places += (places.empty() ? "" : ", ") + candidate.string();
  return fail(base::errc::invalid_argument,
              fmt::format("--extends {}: no such scenario file; looked for {}", spec.string(), places));
}

result<void> apply_set(YAML::Node& root, std::string_view assignment) {
  const auto equals = assignment.find('=');
  if (equals == std::string_view::npos || equals == 0) {
    return fail(base::errc::invalid_argument,
                fmt::format("--set {}: expected path=value, such as workloads.iotTelemetry.rate=2000", assignment));
  }
  const std::string path(assignment.substr(0, equals));
  const std::string value(assignment.substr(equals + 1));
  const auto elements = split(path, '.');
  if (std::any_of(elements.begin(), elements.end(), [](const auto& e) { return e.empty(); })) {
    return fail(base::errc::invalid_argument, fmt::format("--set {}: the path has an empty element", path));
  }
  YAML::Node node = root;
  std::string walked;
  for (std::size_t i = 0; i + 1 < elements.size(); ++i) {
    walked += (walked.empty() ? "" : ".") + elements[i];
    const YAML::Node next = std::as_const(node)[elements[i]];
    if (!next.IsDefined()) {
      return fail(base::errc::invalid_argument,
                  fmt::format("--set {}: {} does not exist in the scenario; --set changes existing sections only", path,
                              walked));
    }
    if (!next.IsMap()) {
      return fail(base::errc::invalid_argument,
                  fmt::format("--set {}: {} is {}, not a mapping", path, walked, kind_of_node(next)));
    }
    node.reset(next);
  }
  const std::string& last = elements.back();
  const YAML::Node existing = std::as_const(node)[last];
  if (!existing.IsDefined()) {
    YAML::Node plain(value);
    plain.SetTag("?");
    node[last] = yaml_scalar::make_scalar(value, yaml_scalar::kind_of(plain));
    return success();
  }
  if (!existing.IsScalar()) {
    return fail(base::errc::invalid_argument, fmt::format("--set {}: {} is {}; --set replaces single values only", path,
                                                          path, kind_of_node(existing)));
  }
  MAGNETAR_TRY(replacement, yaml_scalar::retyped_like(existing, value, fmt::format("--set {}", path)));
  node[last] = replacement;
  return success();
}

result<void> apply_environment(YAML::Node& root, const std::map<std::string, std::string>& environment) {
  for (const auto& [name, value] : environment) {
    std::string_view rest;
    for (auto prefix : environment_prefixes) {
      if (name.size() > prefix.size() && name.starts_with(prefix)) rest = std::string_view(name).substr(prefix.size());
    }
    if (rest.empty()) continue;
    std::string lowered(rest);
    std::transform(lowered.begin(), lowered.end(), lowered.begin(),
                   [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
    const auto tokens = split(lowered, '_');
    YAML::Node node = root;
    std::string path;
    std::size_t at = 0;
    while (at < tokens.size()) {
      if (!node.IsMap()) break;
      const auto match = match_key(node, tokens, at);
      if (!match) break;
      const auto& [key, taken] = *match;
      at += taken;
      path += (path.empty() ? "" : ".") + key;
      const YAML::Node child = std::as_const(node)[key];
      if (at < tokens.size()) {
        node.reset(child);
        continue;
      }
      if (!child.IsScalar()) {
        return fail(base::errc::invalid_argument,
                    fmt::format("{}: {} is {}; environment overrides replace single values only", name, path,
                                kind_of_node(child)));
      }
      MAGNETAR_TRY(replacement, yaml_scalar::retyped_like(child, value, fmt::format("{} ({})", name, path)));
      node[key] = replacement;
    }
  }
  return success();
}

}  // namespace magnetar::perf
