// latency_summary: the percentiles of a latency histogram as the summary JSON files of a
// run give them (`publishLatencyMillis`, `endToEndLatencyMillis`, ...).
// A plain function: thread-safe as long as the histogram is not written meanwhile.
#pragma once

#include "base/histogram.h"

#include <nlohmann/json.hpp>

namespace magnetar::perf {

// The largest latency the workloads' histograms hold, in microseconds: an hour. A
// lagging or late application sees minutes; a larger value would be recorded as this.
inline constexpr std::int64_t max_latency_micros = 3'600'000'000;

// {"p50", "p95", "p99", "p999", "max"} in milliseconds (3 decimals) from a histogram of
// microseconds; zeros for an empty histogram. max is the exact largest sample.
nlohmann::json latency_summary_millis(const base::histogram& micros);

}  // namespace magnetar::perf
