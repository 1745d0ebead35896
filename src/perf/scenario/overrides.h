// overrides: the changes a user makes to a scenario at launch, after its inheritance:
// overlay files (`--extends FILE`), single values (`--set a.b.c=value`) and environment
// variables (`MAGNETAR_PERF_A_B_C=value`, or upstream's `PULSAR_PERFORMANCE_` prefix).
// Overrides change existing settings and keep their YAML type, so a typo fails instead of
// adding a setting nobody reads.
//
// Stateless functions, thread-safe for distinct trees.
#pragma once

#include "base/result.h"

#include <yaml-cpp/yaml.h>

#include <filesystem>
#include <map>
#include <string>
#include <string_view>

namespace magnetar::perf {

// The overlay file that `--extends spec` names for a scenario in `scenario_dir`: an
// absolute path as given; a relative one against the working directory, then the
// scenario's directory, then its configs/ folder; each also with `.yaml` appended when
// the path has no such extension. Fails naming every place it looked.
result<std::filesystem::path> find_overlay(const std::filesystem::path& spec,
                                           const std::filesystem::path& scenario_dir);

// Applies one `path=value` to `root`: every element of the dotted path but the last must
// be an existing mapping; an existing last key must be a scalar and `value` must have its
// type; a new last key takes `value` as YAML reads a plain scalar.
result<void> apply_set(YAML::Node& root, std::string_view assignment);

// Applies the variables of `environment` that start with MAGNETAR_PERF_ or
// PULSAR_PERFORMANCE_ and name an existing scalar: the rest of the name, split at `_`,
// matches keys case-insensitively, a key's own underscores ignored (PODSPERAPPLICATION
// matches podsPerApplication, PULSAR_MEM matches PULSAR_MEM). Names that match no key are
// ignored, as upstream does; a name that matches a mapping or a list, or a value of the
// wrong type, fails naming the variable.
result<void> apply_environment(YAML::Node& root, const std::map<std::string, std::string>& environment);

}  // namespace magnetar::perf
