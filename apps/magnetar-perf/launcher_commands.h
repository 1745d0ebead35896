// launcher_commands: the `run`, `report`, `compare` and `cluster down` subcommands (src/perf/launcher). They exist
// once the launcher's run flow is built (MAGNETAR_PERF_LAUNCHER_RUN); before that
// add_launcher_commands() adds nothing.
#pragma once

#include "perf/launcher/launcher_options.h"

#include <CLI/CLI.hpp>

namespace magnetar::perf {

struct launcher_commands {
  CLI::App* run_command = nullptr;
  CLI::App* compare_command = nullptr;
  CLI::App* report_command = nullptr;
  CLI::App* cluster_down_command = nullptr;
  std::filesystem::path cluster_run_dir;
  launcher_options run;
  compare_options compare;
  std::filesystem::path report_run_dir;
};

// Adds both subcommands to `app`; their options land in `commands`.
void add_launcher_commands(CLI::App& app, launcher_commands& commands);
// Runs the parsed one; -1 when neither was given.
int run_launcher_command(const launcher_commands& commands);

}  // namespace magnetar::perf
