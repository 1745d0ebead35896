// yaml_merge: scenario inheritance. A scenario file's top-level `extends` names one parent
// file or a list of them; the parents are merged in order (each after its own parents),
// then the file itself. Mappings merge key by key, scalars and lists replace, and an
// explicit null (`~`) removes the inherited entry.
//
// Stateless functions over yaml-cpp nodes, thread-safe for distinct trees.
#pragma once

#include "base/result.h"

#include <yaml-cpp/yaml.h>

#include <filesystem>

namespace magnetar::perf {

// Merges `source` (a mapping) into `target` (a mapping) by the rules above. `target` gets
// copies: it shares no node with `source`.
void merge_mapping(YAML::Node& target, const YAML::Node& source);

// Reads `file` with its `extends` resolved (relative paths against the declaring file's
// directory) and merges the result into `target`. Rejects, naming the file: a missing or
// unreadable file, YAML syntax errors, a root that is not a mapping, `extends` that is not
// a path or a list of non-empty paths, and inheritance cycles.
result<void> merge_scenario_file(YAML::Node& target, const std::filesystem::path& file);

// A deep copy of `node` in which nulls inside mappings are gone, as a merge into nothing
// leaves them.
YAML::Node without_nulls(const YAML::Node& node);

}  // namespace magnetar::perf
