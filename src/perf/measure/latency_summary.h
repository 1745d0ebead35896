// latency_summary: the percentiles of a latency histogram as the summary JSON files of a
// run give them (`publishLatencyMillis`, `endToEndLatencyMillis`, ...).
// A plain function: thread-safe as long as the histogram is not written meanwhile.
#pragma once

#include "base/histogram.h"

#include <nlohmann/json.hpp>

namespace magnetar::perf {

// {"p50", "p95", "p99", "p999", "max"} in milliseconds (3 decimals) from a histogram of
// microseconds; zeros for an empty histogram. max is the exact largest sample.
nlohmann::json latency_summary_millis(const base::histogram& micros);

}  // namespace magnetar::perf
