// node_metrics_sample: the figures the launcher samples from each node's `/metrics` (the
// Prometheus text format), one line per node per sample:
//   broker-metrics.csv  the entry cache's counters, which the report's Catch-up section
//                       shows (how often catch-up reads found entries in the cache), and
//                       the publish and dispatch rates (the per-broker chart);
//   bookie-metrics.csv  adds and journal syncs, counted and timed (the per-bookie
//                       journal sync latency chart).
// The `node` column names the node (broker-0, bookie-1; `standalone` for a standalone).
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
  double msg_rate_in = 0;  // pulsar_rate_in summed over topics: messages/s published
  double msg_rate_out = 0;
};

// Sums each family's samples over their labels (topics, namespaces). nullopt when the text
// has none of the families.
std::optional<broker_metrics_sample> parse_broker_metrics(std::string_view prometheus_text);

inline constexpr std::string_view broker_metrics_csv_header =
    "epochMillis,node,cacheHits,cacheMisses,cacheInserts,cacheEvictions,cacheBytes,msgRateIn,msgRateOut";

// One CSV line without the newline.
std::string broker_metrics_csv_line(std::int64_t epoch_millis, std::string_view node,
                                    const broker_metrics_sample& sample);

struct bookie_metrics_sample {
  double adds = 0;  // bookkeeper_server_ADD_ENTRY_REQUEST_count, successful ones
  double add_millis = 0;
  double journal_syncs = 0;  // bookie_journal_JOURNAL_SYNC_count
  double journal_sync_millis = 0;
};

// nullopt when the text has neither family.
std::optional<bookie_metrics_sample> parse_bookie_metrics(std::string_view prometheus_text);

inline constexpr std::string_view bookie_metrics_csv_header =
    "epochMillis,node,addEntryCount,addEntryMillis,journalSyncCount,journalSyncMillis";

std::string bookie_metrics_csv_line(std::int64_t epoch_millis, std::string_view node,
                                    const bookie_metrics_sample& sample);

}  // namespace magnetar::perf
