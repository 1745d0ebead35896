// replication_stats: the `replication` section of a topic's stats on the cluster that
// sends (upstream's shape: per remote cluster its rates, the replicator's backlog,
// whether it is connected and how far behind it is), as rows of replication-stats.csv:
//
//   epochMillis,topic,remoteCluster,msgRateIn,msgRateOut,msgThroughputOut,replicationBacklog,connected,replicationDelayInSeconds
//
// The topic stats sampler (topic_stats_sampler.h) writes them from the stats it reads
// anyway, once a second.
//
// Thread-safety: pure functions.
#pragma once

#include "base/result.h"

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace magnetar::perf {

inline constexpr std::string_view replication_stats_csv_header =
    "epochMillis,topic,remoteCluster,msgRateIn,msgRateOut,msgThroughputOut,replicationBacklog,connected,"
    "replicationDelayInSeconds";

struct replication_stats_row {
  std::string topic;
  std::string remote_cluster;
  double msg_rate_in = 0;
  double msg_rate_out = 0;
  double msg_throughput_out = 0;  // bytes per second
  std::int64_t replication_backlog = 0;
  bool connected = false;
  std::int64_t replication_delay_seconds = 0;
};

// One row per remote cluster of the topic's stats JSON; none when the topic does not
// replicate (no `replication`, or an empty one). invalid_argument when the body is not a
// JSON object.
result<std::vector<replication_stats_row>> parse_replication_stats(std::string_view topic, std::string_view json_body);

// The CSV line of a row, without a newline.
std::string replication_stats_csv_line(std::int64_t epoch_millis, const replication_stats_row& row);

}  // namespace magnetar::perf
