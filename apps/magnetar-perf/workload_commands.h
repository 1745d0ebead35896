// workload_commands: the `iot-produce` and `iot-consume` subcommands, the processes
// the launcher (`magnetar-perf run`) starts for the gateways and the applications.
#pragma once

#include "perf/workload/workload_options.h"

#include <CLI/CLI.hpp>

namespace magnetar::perf {

struct workload_commands {
  CLI::App* produce = nullptr;
  CLI::App* consume = nullptr;
  workload_options options;
};

// Adds both subcommands to `app`; their options land in `commands.options`.
void add_workload_commands(CLI::App& app, workload_commands& commands);
// Runs the parsed one; -1 when neither was given.
int run_workload_command(const workload_commands& commands);

}  // namespace magnetar::perf
