#include "perf/launcher/workload_wait.h"

#include <fmt/format.h>

#include <algorithm>

namespace magnetar::perf {

void wait_for_workloads(std::vector<running_workload>& workloads, const workload_wait_options& options) {
  std::string reason;
  const auto all_ended = [&] {
    return std::all_of(workloads.begin(), workloads.end(),
                       [](const running_workload& w) { return w.code.has_value(); });
  };
  while (!all_ended()) {
    if (options.interrupted()) {
      reason = "the run was interrupted (SIGINT/SIGTERM)";
      break;
    }
    if (std::chrono::steady_clock::now() >= options.deadline) {
      reason =
          fmt::format("still running {} s past timeoutSeconds ({})", options.grace_seconds, options.timeout_seconds);
      break;
    }
    // A slice of a second so that Ctrl-C is seen; the wait itself sleeps in poll() on the
    // first workload still running, and only looks at the others.
    auto slice = std::min(options.deadline, std::chrono::steady_clock::now() + std::chrono::seconds(1));
    for (auto& w : workloads) {
      if (w.code) continue;
      w.code = w.child->wait_until(slice);
      slice = std::chrono::steady_clock::time_point::min();
    }
    if (reason = options.each_second(); !reason.empty()) break;
    // A workload that fails (exit 1) cannot be made up for by the others, which would
    // only wait for their timeout.
    const auto failed = std::find_if(workloads.begin(), workloads.end(),
                                     [](const running_workload& w) { return w.code && *w.code == 1; });
    if (failed != workloads.end() && !all_ended()) {
      reason = fmt::format("the {} failed", failed->name);
      break;
    }
  }
  if (!reason.empty()) options.error_line(fmt::format("{}: stopping the workloads", reason));
  for (auto& w : workloads) {
    if (!w.code) {
      w.outcome->stopped_because = reason;
      w.code = w.child->terminate(std::chrono::seconds(10));
    }
    w.outcome->exit_code = w.code;
  }
}

}  // namespace magnetar::perf
