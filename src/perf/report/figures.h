// figures: the numbers a report shows, taken from a run's summaries (and from its .hgrm
// files where a summary is missing), and how they are written out; shared by the run
// report and the comparison so that both show the same figures.
//
// Pure functions; thread-safe.
#pragma once

#include "perf/report/run_data.h"

#include <array>
#include <optional>
#include <string>
#include <vector>

namespace magnetar::perf::report {

// p50, p95, p99, p99.9 and max, in milliseconds.
inline constexpr std::array<const char*, 5> percentile_keys = {"p50", "p95", "p99", "p999", "max"};
inline constexpr std::array<const char*, 5> percentile_labels = {"p50", "p95", "p99", "p99.9", "max"};

struct latency_row {
  std::string label;
  std::array<std::optional<double>, 5> millis;
};

// Publish latency, publish latency from the intended send time, and each application's
// end-to-end latency; a row only when the run has its summary or its .hgrm file.
std::vector<latency_row> latency_rows(const run_data& run);

// One comparable figure of a run, keyed by group and label.
struct key_figure {
  // "Throughput", "Latency", "Correctness", "Catch-up", "Backlog", "Geo-replication"
  std::string group;
  std::string label;
  std::optional<double> value;
  std::string unit;  // "msg/s", "ms", "s", "" (a count)
  // Which way a change is an improvement; a count such as unique messages is neither.
  enum class better { higher, lower, neither };
  better direction = better::higher;
};

std::vector<key_figure> key_figures(const run_data& run);

// "1,234,567" for counts, "1,234.5" with one decimal, "–" for no value.
std::string format_count(std::optional<double> value);
std::string format_decimal(std::optional<double> value, int decimals);
// Milliseconds with precision that suits their size: 0.123, 1.23, 12.3, 123.
std::string format_millis(std::optional<double> value);
// A figure in its unit, as format_count / format_millis / format_decimal pick.
std::string format_figure(const key_figure& figure);

}  // namespace magnetar::perf::report
