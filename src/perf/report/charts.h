// charts: the run report's charts, drawn by gnuplot (pngcairo) from data files and a
// script generated into the charts folder, gnuplot running as a child process.
//
// Functions without shared state; safe from several threads on different folders.
#pragma once

#include "perf/report/run_data.h"

#include <filesystem>
#include <string>
#include <vector>

namespace magnetar::perf::report {

struct chart_options {
  // The gnuplot executable: a path, or a name looked up on PATH.
  std::string gnuplot = "gnuplot";
  // Put in front of every file name, so that two runs' charts share one folder (compare).
  std::string file_prefix;
};

// gnuplot from MAGNETAR_GNUPLOT when set, else "gnuplot".
chart_options default_chart_options();

struct chart {
  std::string title;
  std::filesystem::path png;  // absolute
};

struct chart_set {
  std::vector<chart> drawn;
  // Why a chart is absent: no data for it, or gnuplot missing or failing.
  std::vector<std::string> notes;
};

// Draws throughput, backlog, latency-percentiles and latency-timeline, and with a remote
// cluster replication-backlog and remote-latency-timeline (each when the run has its data)
// into charts_dir, which is created. The time charts count seconds from the
// run's start and mark its events. Never fails: what could not be drawn is in `notes`.
chart_set draw_charts(const run_data& run, const std::filesystem::path& charts_dir, const chart_options& options);

}  // namespace magnetar::perf::report
