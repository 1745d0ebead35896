// workload_wait: the launcher's wait for its workload processes (the gateways, the
// applications and, with a remote cluster, the remote applications), until each has
// ended or the run must stop them: past the deadline, interrupted, a failure the others
// cannot make up for (one exits 1 while others run), or what `each_second` reports (a
// failed network impairment). Those still running are then stopped (SIGTERM, SIGKILL
// after 10 s), each outcome saying why.
//
//   std::vector<running_workload> running = {{.name = "gateways", .child = &g, .outcome = &out.gateways}, ...};
//   wait_for_workloads(running, {.deadline = d, .timeout_seconds = 240, ...});
//
// Thread-safety: the caller's thread; the children are its own.
#pragma once

#include "perf/cluster/child_process.h"
#include "perf/launcher/run_verdict.h"

#include <chrono>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace magnetar::perf {

// A started workload process, the code it ended with, and what the verdict learns of it.
struct running_workload {
  std::string_view name;  // "gateways", "applications", "remote applications"
  child_process* child = nullptr;
  workload_outcome* outcome = nullptr;
  std::optional<int> code;
};

struct workload_wait_options {
  std::chrono::steady_clock::time_point deadline;
  int timeout_seconds = 0;  // the scenario's, for the message past the deadline
  int grace_seconds = 0;    // how far past it the deadline is, the same
  // Whether the run was interrupted (SIGINT/SIGTERM); looked at every second.
  std::function<bool()> interrupted = [] { return false; };
  // Called every second; a non-empty reason stops the workloads.
  std::function<std::string()> each_second = [] { return std::string(); };
  std::function<void(std::string_view)> error_line = [](std::string_view) {};
};

// Each workload's exit code (and the reason it was stopped, when it was) in its outcome.
void wait_for_workloads(std::vector<running_workload>& workloads, const workload_wait_options& options);

}  // namespace magnetar::perf
