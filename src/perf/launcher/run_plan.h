// run_plan: the launcher's small decisions, kept out of the run's flow so that they are
// tested on their own: the run's name, the workload processes' command lines, where a
// comparison goes, and the exit code of a verdict.
//
// Thread-safety: pure functions.
#pragma once

#include "perf/cluster/child_process.h"
#include "perf/launcher/launcher_options.h"

#include <filesystem>
#include <map>
#include <optional>
#include <string>

namespace magnetar::perf {

// Seconds the launcher gives a workload process past the scenario's timeoutSeconds
// before it stops it.
inline constexpr int workload_grace_seconds = 60;

// --name, else output.name, else the scenario file's stem.
std::string run_name(const launcher_options& options, const std::optional<std::string>& output_name);

// The remote applications are iot-consume --remote, given the remote cluster's service URL.
enum class workload_kind { gateways, applications, remote_applications };

struct workload_paths {
  std::filesystem::path program;  // magnetar-perf
  std::filesystem::path run_dir;
  std::string run_id;
  std::string service_url;
  int nice = 0;  // steps below the launcher's priority; 0: the same
};

// `magnetar-perf iot-produce|iot-consume --config F --output D --run-id ID
// --coordination-dir C --service-url U --events E [--nice N] [--drop-one-message] [--remote]`,
// its output in workloads/<gateways|applications|remote-applications>.log, `env` added to
// its environment. The drop hook is the local applications' only.
child_spec workload_spec(workload_kind kind, const workload_paths& paths, bool drop_one_message,
                         const std::map<std::string, std::string>& env);

// The folder a comparison goes to by default: <run_b>/compare-<run_a's folder name>.
std::filesystem::path default_comparison_dir(const std::filesystem::path& run_a, const std::filesystem::path& run_b);

}  // namespace magnetar::perf
