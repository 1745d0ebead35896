// run_scenario: the `run`, `report`, `compare` and `cluster down` subcommands of magnetar-perf.
//
// run_scenario() runs one scenario from its file to its report: resolve and validate the
// scenario, create the run directory, start a standalone (unless given URLs), start the
// applications and then the gateways process, sample topic stats and print progress
// while they run, compare the device states, write run-info.json, stop the standalone,
// write the report. The exit code: 0 when the run was correct, 1 otherwise (each reason
// printed), 2 for bad options or a scenario that cannot run.
//
// Only built when the scenario, measure, workload and report parts exist
// (MAGNETAR_PERF_LAUNCHER_RUN is then defined for users of this library).
// Thread-safety: one run per process (it handles SIGINT and SIGTERM).
#pragma once

#include "perf/launcher/launcher_options.h"

namespace magnetar::perf {

int run_scenario(const launcher_options& options);
int run_compare(const compare_options& options);
// `magnetar-perf report RUN_DIR`: writes the run's report again from its files (after an
// upgrade, or for a run whose launcher was stopped before it wrote one).
int run_report(const std::filesystem::path& run_dir);
// `magnetar-perf cluster down RUN_DIR`: stops a cluster a run left running (cluster.json).
int run_cluster_down(const std::filesystem::path& run_dir);

}  // namespace magnetar::perf
