#include "perf/measure/latency_summary.h"

namespace magnetar::perf {

namespace {

// Whole microseconds are whole thousandths of a millisecond, so the quotient is already
// the double nearest to a 3-decimal number, and the JSON writer prints it as such.
double millis(std::int64_t micros) { return static_cast<double>(micros) / 1000.0; }

}  // namespace

nlohmann::json latency_summary_millis(const base::histogram& micros) {
  return nlohmann::json{
      {"p50", millis(micros.value_at_percentile(50.0))},  {"p95", millis(micros.value_at_percentile(95.0))},
      {"p99", millis(micros.value_at_percentile(99.0))},  {"p999", millis(micros.value_at_percentile(99.9))},
      {"max", millis(micros.max())},
  };
}

}  // namespace magnetar::perf
