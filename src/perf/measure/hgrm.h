// hgrm: latency histograms as HdrHistogram's percentile-distribution text (the `.hgrm`
// files of a run directory), which HdrHistogram's plotter and other tools read, and a
// parser of that text for the run report.
//
// The text is what HdrHistogram's outputPercentileDistribution() prints: a header, one
// row per percentile tick (value, percentile, total count, 1/(1-percentile)) with ticks
// halving their step every half distance to 100%, a last row at 100%, and a footer with
// mean, standard deviation, max, total count and the histogram's layout.
// Plain functions without shared state: thread-safe.
#pragma once

#include "base/histogram.h"
#include "base/result.h"

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace magnetar::perf {

struct percentile_distribution_options {
  // HdrHistogram's percentileTicksPerHalfDistance.
  int ticks_per_half_distance = 5;
  // Recorded values are divided by this for output: 1000 turns microseconds into
  // milliseconds.
  double output_scaling = 1000.0;
};

// The text for a histogram of microseconds, values in milliseconds, 5 ticks per half
// distance. Values have as many decimals as the histogram has significant digits (3 by
// default: whole microseconds), as HdrHistogram prints them. An empty histogram gives
// the header and a footer of zeros.
std::string percentile_distribution(const base::histogram& micros);
std::string percentile_distribution(const base::histogram& histogram, const percentile_distribution_options& options);

struct hgrm_point {
  double value_millis = 0;
  double percentile = 0;  // as in the file: a fraction, 0 .. 1
  std::int64_t total_count = 0;
};

// The rows of a percentile distribution, in file order; header, blank and `#` lines are
// skipped. invalid_argument naming the line for a row that is not three or four numbers.
result<std::vector<hgrm_point>> parse_percentile_distribution(std::string_view text);

}  // namespace magnetar::perf
