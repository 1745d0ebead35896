#include "perf/bench/st_split_report.h"

#include "perf/measure/latency_summary.h"

#include <fmt/format.h>

namespace magnetar::perf {

std::string summary(const st_split_options& options, const st_split_results& r) {
  return fmt::format(
      "st-split on {}: {} msg/s offered for {} s, {} keys, split of segment 0 at {:.1f} s, merge of 1+2 at {:.1f} s\n"
      "  sent {} (errors {}), received {} unique, {} duplicates, {} out of key order, {} missing\n"
      "  publish latency ms: {}\n"
      "  steady (1 s .. split):  max publish {:.1f} ms, max delivery gap {:.1f} ms\n"
      "  split (REST {:.0f} ms): max publish {:.1f} ms, max delivery gap {:.1f} ms (within {} s)\n"
      "  merge (REST {:.0f} ms): max publish {:.1f} ms, max delivery gap {:.1f} ms (within {} s)\n",
      r.topic, options.rate, options.duration.count(), options.keys, r.split.at_seconds, r.merge.at_seconds, r.sent,
      r.send_errors, r.unique, r.duplicates, r.out_of_order, r.missing, latency_percentiles_line(r.publish_latency_us),
      r.steady_max_publish_latency_ms, r.steady_max_delivery_gap_ms, r.split.admin_call_ms,
      r.split.max_publish_latency_ms, r.split.max_delivery_gap_ms, layout_change_effect_window.count(),
      r.merge.admin_call_ms, r.merge.max_publish_latency_ms, r.merge.max_delivery_gap_ms,
      layout_change_effect_window.count());
}

}  // namespace magnetar::perf
