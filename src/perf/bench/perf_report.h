// perf_report: what produce, consume and pubsub print (a terminal summary) and write
// (report.md with --report-dir), from their options and results.
//
// Pure functions of their arguments: thread-safe as long as the results are not written
// meanwhile.
#pragma once

#include "perf/bench/perf_run.h"

#include <cstdint>
#include <string>

namespace magnetar::perf {

// count / seconds, and 0 for no time at all (a side that never ran).
double per_second(std::uint64_t count, double seconds);

// Throughput of each side, send errors, the spread over several consumers, and the
// publish and end-to-end latency lines of the histograms that hold samples.
std::string summary(const perf_options& options, const perf_results& results);
// The same figures with the settings, as Markdown tables.
std::string markdown_report(const perf_options& options, const perf_results& results);

}  // namespace magnetar::perf
