// scenario_loader: a scenario file (upstream Pulsar's scenario format) into the resolved
// tree the launcher writes to resolved-config.yaml, and a resolved tree into the typed,
// validated scenario_settings the launcher and the workloads run from.
//
//   resolve_scenario()      inheritance (`extends`), `--extends` overlays, `--set`, then
//                           MAGNETAR_PERF_* / PULSAR_PERFORMANCE_* environment overrides
//   parse_settings()        keys, types, ranges, exclusive settings, the timeout check
//   emit_yaml()             the tree as YAML text, strings kept strings
//   load_resolved_config()  what the workload processes call: read, parse_settings
//
// Errors are invalid_argument with a message that names the file or the key path and says
// what is allowed (io_error when a file cannot be read). Stateless functions, thread-safe.
// docs/scenario-format.md describes the format.
#pragma once

#include "base/result.h"
#include "perf/scenario/settings.h"

#include <yaml-cpp/yaml.h>

#include <filesystem>
#include <map>
#include <string>
#include <vector>

namespace magnetar::perf {

struct scenario_overrides {
  // `--extends FILE`, in order: merged over the scenario's own tree (see find_overlay() in
  // overrides.h for where a relative path is looked for).
  std::vector<std::filesystem::path> extends;
  // `--set a.b.c=value`, in order.
  std::vector<std::string> sets;
  // Whether MAGNETAR_PERF_* and PULSAR_PERFORMANCE_* variables apply.
  bool environment = true;
};

// Resolves `file` with the process's environment.
result<YAML::Node> resolve_scenario(const std::filesystem::path& file, const scenario_overrides& overrides);

// The same with an explicit environment (name -> value), for tests and embedders.
result<YAML::Node> resolve_scenario(const std::filesystem::path& file, const scenario_overrides& overrides,
                                    const std::map<std::string, std::string>& environment);

result<scenario_settings> parse_settings(const YAML::Node& resolved);

// What the launcher checks before it starts a cluster of its own: a ledger's ensemble
// (managedLedgerDefaultEnsembleSize in the brokers' env) fits in the bookies. A run
// against a given --service-url doesn't call it.
result<void> check_cluster(const cluster_settings& cluster);

std::string emit_yaml(const YAML::Node& node);

result<scenario_settings> load_resolved_config(const std::filesystem::path& resolved_config_yaml);

// The process's environment as a map (what resolve_scenario() uses by default).
std::map<std::string, std::string> process_environment();

}  // namespace magnetar::perf
