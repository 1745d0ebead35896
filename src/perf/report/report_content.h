// report_content: what the run report and the comparison say, built as documents from
// the loaded runs and their charts (rendering is document.h's).
//
// Pure functions; thread-safe.
#pragma once

#include "perf/report/charts.h"
#include "perf/report/document.h"
#include "perf/report/run_data.h"

#include <filesystem>

namespace magnetar::perf::report {

// The verdict block: PASSED / FAILED with run-info.json's failures, UNKNOWN without it.
verdict run_verdict(const run_data& run);

// The run report; chart images are linked relative to base_dir (the run directory).
document run_document(const run_data& run, const chart_set& charts, const std::filesystem::path& base_dir);

// The comparison of run a with run b (deltas are b - a); charts as drawn into base_dir.
document comparison_document(const run_data& a, const chart_set& charts_a, const run_data& b, const chart_set& charts_b,
                             const std::filesystem::path& base_dir);

}  // namespace magnetar::perf::report
