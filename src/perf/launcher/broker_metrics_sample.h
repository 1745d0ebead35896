// broker_metrics_sample: the broker figures the launcher samples from `/metrics` (the
// Prometheus text format) into broker-metrics.csv: the entry cache's counters, which the
// report's Catch-up section shows (how often catch-up reads found entries in the cache).
//
// Pure functions; thread-safe.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace magnetar::perf {

struct broker_metrics_sample {
  double cache_hits = 0;
  double cache_misses = 0;
  double cache_inserts = 0;
  double cache_evictions = 0;
  double cache_bytes = 0;
};

// Sums each family's samples over their labels (a cluster's brokers, when several answer
// on one endpoint). nullopt when the text has none of the cache families: a broker
// that does not export them (upstream Pulsar has rates, not these counters).
std::optional<broker_metrics_sample> parse_broker_metrics(std::string_view prometheus_text);

inline constexpr std::string_view broker_metrics_csv_header =
    "epochMillis,cacheHits,cacheMisses,cacheInserts,cacheEvictions,cacheBytes";

// One CSV line without the newline.
std::string broker_metrics_csv_line(std::int64_t epoch_millis, const broker_metrics_sample& sample);

}  // namespace magnetar::perf
