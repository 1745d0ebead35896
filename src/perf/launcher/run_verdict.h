// run_verdict: whether a run was correct, and each reason when not, from what the
// workloads left behind (exit codes, summaries, the device-state comparison). The reasons
// go to the console, run-info.json's "failures" and the report.
//
// Thread-safety: pure functions.
#pragma once

#include "base/result.h"

#include <nlohmann/json.hpp>

#include <cstdint>
#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace magnetar::perf {

// How a workload process ended.
struct workload_outcome {
  std::optional<int> exit_code;  // nullopt: never started
  // Why the launcher stopped it, when it did: past its deadline (timeoutSeconds + grace),
  // the other workload failed, or the run was interrupted.
  std::optional<std::string> stopped_because;
  std::string log;  // its log file, named in the reason
};

// One application's results.
struct application_outcome {
  std::string subscription;
  std::optional<nlohmann::json> summary;  // application-summary.json, when readable
  // The device-state comparison with the gateways' state, or why it could not be made.
  std::uint64_t missing_messages = 0;
  std::uint64_t devices_missing = 0;
  std::vector<std::string> missing_samples;
  std::optional<std::string> state_error;
};

struct verdict_inputs {
  workload_outcome gateways;
  workload_outcome applications;
  std::optional<nlohmann::json> gateways_summary;
  std::vector<application_outcome> each_application;
  int timeout_seconds = 0;
  // A remote cluster's applications (geo-replication), judged as the local ones: every
  // receipted message, replicated, in order per device. Absent without cluster.remote.
  std::optional<workload_outcome> remote_applications;
  std::vector<application_outcome> each_remote_application;
};

struct run_verdict {
  bool passed = true;
  std::vector<std::string> failures;
  std::map<std::string, std::uint64_t> missing_messages;         // by subscription
  std::map<std::string, std::uint64_t> remote_missing_messages;  // the remote applications'
};

run_verdict judge_run(const verdict_inputs& inputs);

// A JSON file's content; io_error when unreadable, corrupt_data when not JSON.
result<nlohmann::json> read_json_file(const std::filesystem::path& file);

}  // namespace magnetar::perf
