// run_info: run-info.json, the run's identity and verdict (format in src/perf/README.md),
// which the report and `compare` read.
//
// Thread-safety: pure functions, apart from write_run_info()'s file.
#pragma once

#include "base/result.h"
#include "perf/launcher/host_info.h"
#include "perf/launcher/run_verdict.h"

#include <nlohmann/json.hpp>

#include <chrono>
#include <filesystem>
#include <string>

namespace magnetar::perf {

struct run_info {
  std::string run_id;
  std::string name;
  std::filesystem::path scenario;  // absolute
  std::chrono::system_clock::time_point started_at;
  std::chrono::system_clock::time_point finished_at;
  std::string service_url;
  std::string admin_url;
  // The remote cluster's, in a geo-replicated run (cluster.remote); empty otherwise.
  std::string remote_service_url;
  std::string remote_admin_url;
  bool standalone = false;  // the launcher started a standalone
  bool cluster = false;     // the launcher started a cluster (cluster.json describes it)
  int workload_nice = 0;    // the workloads' nice steps below the launcher, as the kernel allows them
  host_info host;
  std::string magnetar_version;
  run_verdict verdict;
};

nlohmann::json to_json(const run_info& info);

// Writes `<run_dir>/run-info.json` (pretty-printed, through a temporary file and a rename).
result<void> write_run_info(const std::filesystem::path& run_dir, const run_info& info);

}  // namespace magnetar::perf
