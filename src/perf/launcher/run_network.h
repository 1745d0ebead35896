// run_network: a run's network section from the probe to the summary. The launcher
//
//   1. probes before the cluster starts (probe(): refuses what this machine cannot do),
//   2. plans the impairments on the started cluster's namespaces and applies those of the
//      whole run before the workloads start (start()),
//   3. lets the schedule apply and remove the timed ones as the gateways' events come
//      (failure() turns non-empty at once when one fails: the launcher stops the run),
//   4. removes everything and writes network-summary.json after the workloads end
//      (finish(): also what fails the run's verdict).
//
// Every apply, removal and failure goes to network-events.jsonl and, as
// `network-<action>-<name>`, to events.csv, whose events the report marks on its charts.
//
// Thread-safety: one owner; failure() from any thread.
#pragma once

#include "base/result.h"
#include "perf/cluster/cluster_network.h"
#include "perf/network/impairment_engine.h"
#include "perf/network/impairment_schedule.h"
#include "perf/network/network_host.h"
#include "perf/network/network_probe.h"
#include "perf/scenario/settings.h"

#include <filesystem>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace magnetar::perf {

class run_network {
 public:
  // What this machine can do, probed in a throwaway namespace; an error when an
  // impairment needs what it lacks.
  static result<network_capabilities> probe(const network_settings& network);

  struct options {
    const scenario_settings* settings = nullptr;
    const cluster_network* network = nullptr;
    network_capabilities capabilities;
    std::filesystem::path run_dir;
    std::filesystem::path program;                    // magnetar-perf, for the delay forwarders
    std::function<void(std::string_view)> log_event;  // to events.csv
    std::function<void(std::string_view)> print;      // to the console
  };
  // Plans the impairments and applies those of the whole run.
  static result<std::unique_ptr<run_network>> start(options options);

  ~run_network();
  run_network(const run_network&) = delete;
  run_network& operator=(const run_network&) = delete;

  // Starts the timed impairments' schedule (once the workloads run).
  void start_schedule();
  // Why the run must stop now (an impairment failed), or empty.
  std::string failure() const;
  // Stops the schedule, removes every impairment, restores the offloads and writes the
  // summary: what fails the run (failed, never acted, found no connection).
  std::vector<std::string> finish();

 private:
  explicit run_network(options options);

  options _options;
  system_network_host _host;
  std::vector<planned_impairment> _plan;
  std::unique_ptr<impairment_engine> _engine;
  std::unique_ptr<impairment_schedule> _schedule;
  mutable std::mutex _mutex;
  std::string _failure;
  bool _finished = false;
};

}  // namespace magnetar::perf
