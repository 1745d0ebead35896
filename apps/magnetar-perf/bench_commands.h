// bench_commands: the `produce`, `consume`, `pubsub`, `st-split` and `limit` subcommands,
// one process loading a broker and printing what it measured (src/perf/bench).
// Thread-safety: main's thread only, as CLI11 is.
#pragma once

#include "perf/bench/limit_pipeline.h"
#include "perf/bench/perf_run.h"
#include "perf/bench/st_split_run.h"

#include <CLI/CLI.hpp>

#include <string>

namespace magnetar::perf {

struct bench_commands {
  CLI::App* produce = nullptr;
  CLI::App* consume = nullptr;
  CLI::App* pubsub = nullptr;
  CLI::App* st_split = nullptr;
  CLI::App* limit = nullptr;
  perf_options perf;
  limit_options pipeline;      // limit
  bool pipeline_only = false;  // limit --pipeline-only
  std::string report_dir;      // pubsub --report-dir
  st_split_options split;
};

// Adds the five subcommands to `app`; their options land in `commands`.
void add_bench_commands(CLI::App& app, bench_commands& commands);
// Runs the parsed one and prints its summary; -1 when none was given.
int run_bench_command(const bench_commands& commands);

}  // namespace magnetar::perf
