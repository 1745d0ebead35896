#include "perf/measure/latency_summary.h"

#include <fmt/format.h>

namespace magnetar::perf {

namespace {

// Whole microseconds are whole thousandths of a millisecond, so the quotient is already
// the double nearest to a 3-decimal number, and the JSON writer prints it as such.
double millis(std::int64_t micros) { return static_cast<double>(micros) / 1000.0; }

}  // namespace

latency_millis latency_in_millis(const base::histogram& micros) {
  return latency_millis{.count = micros.total_count(),
                        .p50 = millis(micros.value_at_percentile(50.0)),
                        .p95 = millis(micros.value_at_percentile(95.0)),
                        .p99 = millis(micros.value_at_percentile(99.0)),
                        .p999 = millis(micros.value_at_percentile(99.9)),
                        .max = millis(micros.max()),
                        .mean = micros.mean() / 1000.0};
}

nlohmann::json latency_summary_millis(const base::histogram& micros) {
  const auto l = latency_in_millis(micros);
  return nlohmann::json{{"p50", l.p50}, {"p95", l.p95}, {"p99", l.p99}, {"p999", l.p999}, {"max", l.max}};
}

std::string latency_percentiles_line(const base::histogram& micros) {
  const auto l = latency_in_millis(micros);
  return fmt::format("p50 {:.2f} p99 {:.2f} p99.9 {:.2f} max {:.2f}", l.p50, l.p99, l.p999, l.max);
}

}  // namespace magnetar::perf
