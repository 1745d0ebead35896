// prometheus: the broker's figures as Prometheus text exposition (format 0.0.4), with
// Pulsar's metric names where Pulsar has one.
//
//   per topic (labels cluster, namespace, topic): pulsar_subscriptions_count,
//     pulsar_producers_count, pulsar_consumers_count, pulsar_rate_in, pulsar_rate_out,
//     pulsar_throughput_in, pulsar_throughput_out, pulsar_storage_size,
//     pulsar_storage_backlog_size, pulsar_msg_backlog, pulsar_in_messages_total,
//     pulsar_in_bytes_total, pulsar_out_messages_total, pulsar_out_bytes_total; and the
//     last stats interval's storage writes as upstream's bucket gauges:
//     pulsar_storage_write_latency_le_{0_5..1000} / _overflow / _count / _sum,
//     pulsar_storage_ledger_write_latency_* likewise, pulsar_entry_size_le_{128..1_mb} /
//     _le_overflow / _count / _sum (once the topic's first interval ended)
//   per subscription (+ subscription): pulsar_subscription_back_log,
//     pulsar_subscription_msg_rate_out, pulsar_subscription_msg_throughput_out,
//     pulsar_subscription_msg_rate_redeliver, pulsar_subscription_unacked_messages,
//     pulsar_subscription_consumers_count
//   broker (label cluster): pulsar_active_connections,
//     pulsar_connection_created_total_count, pulsar_topics_count (per namespace),
//     pulsar_broker_topics_count, pulsar_broker_producers_count,
//     pulsar_broker_consumers_count, pulsar_broker_subscriptions_count,
//     pulsar_ml_cache_used_size; and, where Pulsar only has rates,
//     magnetar_ml_cache_hits_total, magnetar_ml_cache_misses_total,
//     magnetar_ml_cache_inserts_total and magnetar_ml_cache_evictions_total (counters).
//
// Every family has # HELP and # TYPE lines; label values are escaped (\\, \", \n).
// Pure functions; thread-safe.
#pragma once

#include "broker/api/topic_admin.h"

#include <map>
#include <string>
#include <string_view>

namespace magnetar::broker::admin {

// `topics` is keyed by full topic name ("persistent://t/ns/x").
std::string render_metrics(std::string_view cluster, const std::map<std::string, topic_stats>& topics,
                           const broker_metrics& broker);

// A label value escaped for the text format.
std::string escape_label_value(std::string_view value);

}  // namespace magnetar::broker::admin
