// stats_json: the broker's stats structs (topic_admin.h) as Pulsar's JSON, and the
// message ids that subscription requests carry, parsed from Pulsar's JSON.
//
// Field names are exactly Pulsar's TopicStats, SubscriptionStats, ConsumerStats,
// PublisherStats and PersistentTopicInternalStats, so pulsar-admin, upstream test
// suites and dashboards read them unchanged. Pure functions; thread-safe.
#pragma once

#include "base/result.h"
#include "broker/api/topic_admin.h"

#include <nlohmann/json.hpp>

#include <string_view>

namespace magnetar::broker::admin {

nlohmann::json to_json(const publisher_stats& stats);
nlohmann::json to_json(const consumer_stats& stats);
nlohmann::json to_json(const subscription_stats& stats);
nlohmann::json to_json(const replicator_stats& stats);
nlohmann::json to_json(const topic_stats& stats);
nlohmann::json to_json(const ledger_internal_stats& stats);
nlohmann::json to_json(const cursor_internal_stats& stats);
nlohmann::json to_json(const topic_internal_stats& stats);

// Partitioned-topic stats as Pulsar's PartitionedTopicStats: the sums over the
// partitions, "metadata": {"partitions": N}, and "partitions" per partition when
// `per_partition` (keyed by the partition's full name).
nlohmann::json partitioned_to_json(int partitions, const std::map<std::string, topic_stats>& by_partition,
                                   bool per_partition);

// Serialises for a response body; invalid UTF-8 in names is replaced, never thrown.
std::string dump(const nlohmann::json& value);

// Adds one partition's stats JSON (as another broker answered it) into `total`:
// numbers summed, lists of names joined without repeats, other lists appended, objects
// (subscriptions by name) merged the same way, anything else kept from the first.
// averageMsgSize is left to the caller, who knows the totals.
void merge_stats_json(nlohmann::json& total, const nlohmann::json& partition);

// Parses a request body as JSON: errc::invalid_request naming the problem and its byte.
result<nlohmann::json> parse_json(std::string_view body);

// Where a subscription starts or a cursor goes, from a body as Pulsar's admin sends it:
// a MessageId / ResetCursorData object {"ledgerId": L, "entryId": E, "partitionIndex": P,
// "batchIndex": B, "isExcluded": X}; or the strings "latest"/"earliest" (bare or JSON);
// an empty body is `otherwise`. With isExcluded, the position after the one named.
struct message_id_body {
  message_position position;
  int partition_index = -1;  // -1: not given
};
result<message_id_body> parse_message_id(std::string_view body, message_position otherwise);

}  // namespace magnetar::broker::admin
