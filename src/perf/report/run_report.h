// run_report: the run report of a run directory (README.md, index.html and the charts
// under charts/), and the comparison of two runs (`magnetar-perf compare`).
//
// Both read the run directory laid out as src/perf/README.md's contract says; any file
// may be missing (a run that failed early), and the report then renders what exists and
// names what is missing. Charts are drawn by gnuplot, run as a child process: the
// executable is `gnuplot` on PATH unless the environment variable MAGNETAR_GNUPLOT names
// another. Without it the report is still written, with a note instead of the charts.
//
// Free functions without shared state: safe to call from several threads on different
// directories; two calls writing the same directory race on its files.
#pragma once

#include "base/result.h"

#include <filesystem>

namespace magnetar::perf {

// Writes charts/*.png, README.md and index.html into run_dir; returns index.html's path.
// Fails (not_found) only when run_dir is not a directory, or (io_error) when the report
// files cannot be written.
result<std::filesystem::path> write_run_report(const std::filesystem::path& run_dir);

// Writes compare.md and compare.html (self-contained) into out_dir, created if need be,
// with the two runs' key figures side by side, their deltas (B against A) and both runs'
// charts (drawn into out_dir/charts/); returns compare.html's path. The run directories
// are only read.
result<std::filesystem::path> write_comparison(const std::filesystem::path& run_a, const std::filesystem::path& run_b,
                                               const std::filesystem::path& out_dir);

}  // namespace magnetar::perf
