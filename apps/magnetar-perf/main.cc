// magnetar-perf: load against a Pulsar-protocol broker, measured.
//
//   magnetar-perf produce  -u pulsar://host:6650 -t topic -s 100 -r 30000 -d 20
//   magnetar-perf consume  -u ... -t topic --subscription perf-sub -d 20
//   magnetar-perf pubsub   -u ... -t topic -s 100 -d 20 [--report-dir DIR]
//   magnetar-perf st-split -u ... --admin-url http://host:8080 -r 30000 -d 30   (bench_commands.h)
//   magnetar-perf run --scenario FILE [--set k=v] [--reports-dir D]   (launcher_commands.h)
//   magnetar-perf compare RUN_A RUN_B
//   magnetar-perf report RUN_DIR
//   magnetar-perf network-check | netem-forward ...             (network_commands.h)
//
// Flags follow pulsar-perf's vocabulary where one exists. pubsub runs a consumer and a
// producer in one process and reports throughput and publish / end-to-end latency
// percentiles; --report-dir writes report.md there.
#include "base/log.h"
#include "bench_commands.h"
#include "launcher_commands.h"
#include "network_commands.h"
#include "workload_commands.h"

#include <fmt/format.h>
#include <CLI/CLI.hpp>

#include <cstdlib>

int main(int argc, char** argv) {
  CLI::App app{"magnetar-perf: load a Pulsar-protocol broker and measure it"};
  app.require_subcommand(1);
  magnetar::perf::bench_commands bench;
  magnetar::perf::add_bench_commands(app, bench);
  magnetar::perf::workload_commands workloads;
  magnetar::perf::add_workload_commands(app, workloads);
  magnetar::perf::launcher_commands launcher;
  magnetar::perf::add_launcher_commands(app, launcher);
  magnetar::perf::network_commands network;
  magnetar::perf::add_network_commands(app, network);
  CLI11_PARSE(app, argc, argv);

  if (auto logging = magnetar::base::init_logging("magnetar-perf", "warn"); !logging) {
    fmt::print(stderr, "magnetar-perf: {}\n", logging.error());
    return EXIT_FAILURE;
  }
  if (const int workload = magnetar::perf::run_workload_command(workloads); workload >= 0) return workload;
  if (const int launched = magnetar::perf::run_launcher_command(launcher); launched >= 0) return launched;
  if (const int networked = magnetar::perf::run_network_command(network); networked >= 0) return networked;
  if (const int benched = magnetar::perf::run_bench_command(bench); benched >= 0) return benched;
  return EXIT_FAILURE;  // require_subcommand(1) leaves no other case
}
