#include "perf/scenario/scenario_loader.h"

#include "perf/scenario/overrides.h"
#include "perf/scenario/yaml_merge.h"

#include <fmt/format.h>

#include <fstream>
#include <sstream>

extern char** environ;

namespace magnetar::perf {
namespace {

namespace fs = std::filesystem;

void emit_node(YAML::Emitter& out, const YAML::Node& node) {
  switch (node.Type()) {
    case YAML::NodeType::Map:
      // An empty mapping or list in block style would come out as a lone "{}" line.
      if (node.size() == 0) {
        out << YAML::Flow << YAML::BeginMap << YAML::EndMap;
        break;
      }
      out << YAML::BeginMap;
      for (const auto& entry : node) {
        out << YAML::Key << entry.first.Scalar() << YAML::Value;
        emit_node(out, entry.second);
      }
      out << YAML::EndMap;
      break;
    case YAML::NodeType::Sequence:
      if (node.size() == 0) {
        out << YAML::Flow << YAML::BeginSeq << YAML::EndSeq;
        break;
      }
      out << YAML::BeginSeq;
      for (const auto& item : node) emit_node(out, item);
      out << YAML::EndSeq;
      break;
    case YAML::NodeType::Scalar:
      // A quoted scalar is a string; yaml-cpp's emitter would write "true" or "8192" plain,
      // and a reader would take them for a boolean or a number.
      if (node.Tag() == "!") {
        out << YAML::DoubleQuoted << node.Scalar();
      } else {
        out << node.Scalar();
      }
      break;
    case YAML::NodeType::Null:
    case YAML::NodeType::Undefined: out << YAML::Null; break;
  }
}

}  // namespace

std::map<std::string, std::string> process_environment() {
  std::map<std::string, std::string> environment;
  for (char** entry = environ; entry != nullptr && *entry != nullptr; ++entry) {
    std::string_view text(*entry);
    const auto equals = text.find('=');
    if (equals == std::string_view::npos) continue;
    environment.emplace(text.substr(0, equals), text.substr(equals + 1));
  }
  return environment;
}

result<YAML::Node> resolve_scenario(const fs::path& file, const scenario_overrides& overrides) {
  return resolve_scenario(file, overrides,
                          overrides.environment ? process_environment() : std::map<std::string, std::string>{});
}

result<YAML::Node> resolve_scenario(const fs::path& file, const scenario_overrides& overrides,
                                    const std::map<std::string, std::string>& environment) {
  YAML::Node tree(YAML::NodeType::Map);
  MAGNETAR_TRY(merge_scenario_file(tree, file));
  for (const auto& overlay : overrides.extends) {
    MAGNETAR_TRY(path, find_overlay(overlay, file.parent_path()));
    MAGNETAR_TRY(merge_scenario_file(tree, path));
  }
  for (const auto& assignment : overrides.sets) {
    MAGNETAR_TRY(apply_set(tree, assignment));
  }
  if (overrides.environment) {
    MAGNETAR_TRY(apply_environment(tree, environment));
  }
  return tree;
}

std::string emit_yaml(const YAML::Node& node) {
  YAML::Emitter out;
  emit_node(out, node);
  std::string text = out.c_str();
  if (!text.empty() && text.back() != '\n') text.push_back('\n');
  return text;
}

result<scenario_settings> load_resolved_config(const fs::path& resolved_config_yaml) {
  std::ifstream in(resolved_config_yaml);
  if (!in) {
    return fail(base::errc::io_error, fmt::format("{}: cannot be read", resolved_config_yaml.string()));
  }
  std::stringstream text;
  text << in.rdbuf();
  YAML::Node tree;
  try {
    tree = YAML::Load(text.str());
  } catch (const YAML::Exception& e) {
    return fail(base::errc::invalid_argument, fmt::format("{}: line {}, column {}: {}", resolved_config_yaml.string(),
                                                          e.mark.line + 1, e.mark.column + 1, e.msg));
  }
  auto settings = parse_settings(tree);
  if (!settings) {
    return fail(settings.error().code(),
                fmt::format("{}: {}", resolved_config_yaml.string(), settings.error().detail()));
  }
  return settings;
}

}  // namespace magnetar::perf
