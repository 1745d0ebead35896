// latency_summary: the percentiles of a latency histogram of microseconds, in
// milliseconds, as every part of the perf framework prints them: the summary JSON files
// of a run (`publishLatencyMillis`, `endToEndLatencyMillis`, ...), and the terminal
// lines and report rows of magnetar-perf's produce, consume, pubsub and st-split.
// Plain functions: thread-safe as long as the histogram is not written meanwhile.
#pragma once

#include "base/histogram.h"

#include <nlohmann/json.hpp>

#include <cstdint>
#include <string>

namespace magnetar::perf {

// The largest latency the workloads' histograms hold, in microseconds: an hour. A
// lagging or late application sees minutes; a larger value would be recorded as this.
inline constexpr std::int64_t max_latency_micros = 3'600'000'000;

// A histogram's figures in milliseconds; zeros for an empty histogram. max is the exact
// largest sample.
struct latency_millis {
  std::int64_t count = 0;
  double p50 = 0;
  double p95 = 0;
  double p99 = 0;
  double p999 = 0;
  double max = 0;
  double mean = 0;
};
latency_millis latency_in_millis(const base::histogram& micros);

// {"p50", "p95", "p99", "p999", "max"} in milliseconds (3 decimals).
nlohmann::json latency_summary_millis(const base::histogram& micros);

// "p50 1.23 p99 4.56 p99.9 7.89 max 12.34" (2 decimals): a terminal line's figures.
std::string latency_percentiles_line(const base::histogram& micros);

}  // namespace magnetar::perf
