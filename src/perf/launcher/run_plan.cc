#include "perf/launcher/run_plan.h"

#include <string>

namespace magnetar::perf {

namespace fs = std::filesystem;

namespace {

// "runs/x/" names its last folder, not an empty one.
fs::path without_trailing_slash(const fs::path& path) { return path.has_filename() ? path : path.parent_path(); }

}  // namespace

std::string run_name(const launcher_options& options, const std::optional<std::string>& output_name) {
  if (options.name && !options.name->empty()) return *options.name;
  if (output_name && !output_name->empty()) return *output_name;
  return options.scenario.stem().string();
}

child_spec workload_spec(workload_kind kind, const workload_paths& paths, bool drop_one_message,
                         const std::map<std::string, std::string>& env) {
  const bool gateways = kind == workload_kind::gateways;
  const bool remote = kind == workload_kind::remote_applications;
  const char* folder = gateways ? "gateways" : remote ? "remote-applications" : "applications";
  child_spec spec{
      .program = paths.program,
      .args = {gateways ? "iot-produce" : "iot-consume", "--config", (paths.run_dir / "resolved-config.yaml").string(),
               "--output", (paths.run_dir / folder).string(), "--run-id", paths.run_id, "--coordination-dir",
               (paths.run_dir / "coordination").string(), "--service-url", paths.service_url, "--events",
               (paths.run_dir / "events.csv").string()},
      .environment = {env.begin(), env.end()},
      .log_file = paths.run_dir / "workloads" / (std::string(folder) + ".log")};
  if (paths.nice > 0) {
    spec.args.emplace_back("--nice");
    spec.args.push_back(std::to_string(paths.nice));
  }
  if (kind == workload_kind::applications && drop_one_message) spec.args.emplace_back("--drop-one-message");
  if (remote) spec.args.emplace_back("--remote");
  return spec;
}

fs::path default_comparison_dir(const fs::path& run_a, const fs::path& run_b) {
  return without_trailing_slash(run_b) / ("compare-" + without_trailing_slash(run_a).filename().string());
}

}  // namespace magnetar::perf
