// topic_admin: what the admin REST API and /metrics ask of the broker's topics.
//
// The broker's topic_registry (broker/topic/) implements it; src/broker/admin/ depends on this interface only,
// so the REST layer stays a translation of paths and JSON into these calls. Errors use
// broker::errc (topic_not_found, subscription_not_found, conflict, ...), which the REST
// layer maps to Pulsar's HTTP statuses.
//
// Calls may come from any thread that runs a coroutine (the HTTP server's shard); the
// implementation hops to each topic's owning shard. Stats are snapshots.
#pragma once

#include "base/result.h"
#include "base/stats_buckets.h"
#include "io/asio.h"
#include "wire/topic_name.h"

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace magnetar::broker {

// Names and units as Pulsar's TopicStats JSON (rates per second over the last interval).
struct publisher_stats {
  std::string producer_name;
  std::uint64_t producer_id = 0;
  std::string address;                          // the client's "ip:port"
  std::string connected_since;                  // ISO-8601
  std::string access_mode;                      // "Shared", "Exclusive", ...
  std::string client_version;                   // CONNECT's client_version
  std::map<std::string, std::string> metadata;  // PRODUCER's metadata
  double msg_rate_in = 0;
  double msg_throughput_in = 0;
  double average_msg_size = 0;
};

struct consumer_stats {
  std::string consumer_name;
  std::string address;
  std::string connected_since;
  std::string client_version;
  std::map<std::string, std::string> metadata;  // SUBSCRIBE's metadata
  double msg_rate_out = 0;
  double msg_throughput_out = 0;
  double msg_rate_redeliver = 0;
  std::uint64_t msg_out_counter = 0;
  std::uint64_t bytes_out_counter = 0;
  std::int64_t available_permits = 0;
  std::uint64_t unacked_messages = 0;
  int priority_level = 0;
  bool blocked_consumer_on_unacked_msgs = false;
  // Key_Shared: the key hash ranges it owns, inclusive.
  std::vector<std::pair<int, int>> key_hash_ranges;
};

struct subscription_stats {
  std::string type;  // "Exclusive", "Failover", "Shared", "Key_Shared"
  bool is_durable = true;
  std::uint64_t msg_backlog = 0;  // entries not acknowledged
  double msg_rate_out = 0;
  double msg_throughput_out = 0;
  double msg_rate_redeliver = 0;
  std::uint64_t msg_out_counter = 0;
  std::uint64_t bytes_out_counter = 0;
  std::uint64_t unacked_messages = 0;
  std::uint64_t msg_delayed = 0;            // Shared, Key_Shared: entries held for their deliver time
  std::uint64_t msg_in_replay = 0;          // entries waiting to be delivered again
  std::uint64_t draining_hashes_count = 0;  // Key_Shared
  std::string active_consumer_name;         // Exclusive and Failover only
  std::vector<consumer_stats> consumers;
  std::optional<double> msg_drop_rate;  // non-persistent topics only
};

// Pulsar's ReplicatorStats: a topic's replication with one remote cluster. The
// sending side reports out, backlog, delay and connected; the receiving side the
// messages that came in from that cluster.
struct replicator_stats {
  double msg_rate_in = 0;
  double msg_throughput_in = 0;
  double msg_rate_out = 0;
  double msg_throughput_out = 0;
  std::uint64_t msg_in_counter = 0;
  std::uint64_t msg_out_counter = 0;
  std::uint64_t replication_backlog = 0;  // entries not yet receipted by the remote
  bool connected = false;
  std::int64_t replication_delay_seconds = 0;  // age of the oldest entry not yet receipted
};

struct topic_stats {
  double msg_rate_in = 0;
  double msg_rate_out = 0;
  double msg_throughput_in = 0;
  double msg_throughput_out = 0;
  std::uint64_t msg_in_counter = 0;
  std::uint64_t bytes_in_counter = 0;
  std::uint64_t msg_out_counter = 0;
  std::uint64_t bytes_out_counter = 0;
  double average_msg_size = 0;
  std::uint64_t storage_size = 0;
  std::uint64_t backlog_size = 0;  // bytes behind the slowest durable subscription
  // Upstream's deduplicationStatus: "Disabled", "Recovering", "Enabled", "Removing", "Failed".
  std::string deduplication_status = "Disabled";
  std::vector<publisher_stats> publishers;
  std::map<std::string, subscription_stats> subscriptions;
  std::map<std::string, replicator_stats> replication;  // by remote cluster
  std::optional<double> msg_drop_rate;                  // non-persistent topics only: what no consumer could take
  // The storage writes of the last stats interval (a minute, upstream's
  // statsUpdateFrequencyInSecs), for /metrics: add latency and ledger add latency in
  // microseconds, entry sizes in bytes (mledger::storage_write_stats). Empty before the
  // first interval ends.
  std::optional<base::stats_buckets> storage_write_latency_us;
  std::optional<base::stats_buckets> storage_ledger_write_latency_us;
  std::optional<base::stats_buckets> entry_size;
};

// Pulsar's PersistentTopicInternalStats, the parts that describe storage.
struct ledger_internal_stats {
  std::int64_t ledger_id = 0;
  std::uint64_t entries = 0;
  std::uint64_t size = 0;
  std::int64_t timestamp = 0;
};
struct cursor_internal_stats {
  std::string mark_delete_position;  // "ledger:entry"
  std::string read_position;
  std::string individually_deleted_message_ranges;  // "[(l:e..l:e]...]"
  std::uint64_t messages_consumed_counter = 0;
  std::uint64_t number_of_entries_since_first_not_acked_message = 0;
  std::uint64_t total_non_contiguous_deleted_messages_range = 0;
  bool is_durable = true;
};
struct topic_internal_stats {
  std::uint64_t entries_added_counter = 0;
  std::uint64_t number_of_entries = 0;
  std::uint64_t total_size = 0;
  std::uint64_t current_ledger_entries = 0;
  std::uint64_t current_ledger_size = 0;
  std::string last_confirmed_entry;  // "ledger:entry"
  std::string state;                 // "LedgerOpened", ...
  std::vector<ledger_internal_stats> ledgers;
  std::map<std::string, cursor_internal_stats> cursors;
};

// Where a subscription starts or a cursor is reset to.
struct message_position {
  std::int64_t ledger_id = -1;
  std::int64_t entry_id = -1;
  static message_position earliest() { return {-1, -1}; }
  static message_position latest() { return {INT64_MAX, INT64_MAX}; }
};

// Broker-wide figures for /metrics (pulsar_broker_*, connections, storage).
struct broker_metrics {
  std::uint64_t active_connections = 0;
  std::uint64_t total_connections = 0;  // opened since start
  std::uint64_t topics = 0;
  std::uint64_t producers = 0;
  std::uint64_t consumers = 0;
  std::uint64_t subscriptions = 0;
  std::uint64_t cache_size_bytes = 0;
  std::uint64_t cache_hits = 0;
  std::uint64_t cache_misses = 0;
  std::uint64_t cache_inserts = 0;
  std::uint64_t cache_evictions = 0;  // expired or evicted for size; not invalidations
};

class scalable_admin;

class topic_admin {
 public:
  virtual ~topic_admin() = default;

  // Scalable topics (topic://), when the broker serves them; null otherwise.
  virtual scalable_admin* scalable_topics() { return nullptr; }

  // Creates a non-partitioned topic; errc::conflict when it exists.
  virtual awaitable<result<void>> create_topic(wire::topic_name topic) = 0;
  // errc::topic_not_found; errc::precondition_failed when it has producers or consumers
  // and `force` is false.
  virtual awaitable<result<void>> delete_topic(wire::topic_name topic, bool force) = 0;
  // Full names ("persistent://t/ns/x") of the namespace's non-partitioned topics and
  // partitions, loaded or not.
  virtual awaitable<result<std::vector<std::string>>> list_topics(std::string namespace_name) = 0;
  // Full names of the namespace's non-persistent topics with producers or subscriptions.
  virtual awaitable<std::vector<std::string>> list_non_persistent_topics(std::string namespace_name) = 0;

  virtual awaitable<result<topic_stats>> stats(wire::topic_name topic) = 0;
  virtual awaitable<result<topic_internal_stats>> internal_stats(wire::topic_name topic) = 0;

  virtual awaitable<result<std::vector<std::string>>> list_subscriptions(wire::topic_name topic) = 0;
  // errc::conflict when it exists.
  virtual awaitable<result<void>> create_subscription(wire::topic_name topic, std::string subscription,
                                                      message_position start) = 0;
  // errc::precondition_failed when it has consumers and `force` is false.
  virtual awaitable<result<void>> delete_subscription(wire::topic_name topic, std::string subscription, bool force) = 0;
  // Moves the subscription so the next message delivered is the one at `to`.
  virtual awaitable<result<void>> reset_cursor(wire::topic_name topic, std::string subscription,
                                               message_position to) = 0;
  // To the first message published at or after `publish_time_ms`.
  virtual awaitable<result<void>> reset_cursor_to_time(wire::topic_name topic, std::string subscription,
                                                       std::int64_t publish_time_ms) = 0;
  virtual awaitable<result<void>> skip_messages(wire::topic_name topic, std::string subscription,
                                                std::uint64_t count) = 0;
  virtual awaitable<result<void>> clear_backlog(wire::topic_name topic, std::string subscription) = 0;
  // Terminates the topic (no more messages; producers closed, consumers told when they
  // reach the end) and returns its last message's position ({ledger, -1} when it has
  // none). Idempotent. errc::topic_not_found; errc::not_allowed for a partitioned
  // topic's base name (terminate its partitions).
  virtual awaitable<result<message_position>> terminate_topic(wire::topic_name topic) = 0;

  // Closes the topic on this broker, as upstream's unload: its producers and consumers are
  // told (CLOSE_PRODUCER, CLOSE_CONSUMER) and come back through a lookup, the cursors are
  // persisted, and the data stays. A topic that exists but is not loaded is unloaded
  // already. errc::topic_not_found when it does not exist.
  virtual awaitable<result<void>> unload_topic(wire::topic_name topic) = 0;
  // Unloads every loaded topic of the namespace.
  virtual awaitable<void> unload_namespace(std::string namespace_name) = 0;

  // A namespace's policies changed (deduplication, TTL, backlog quota, retention): its
  // loaded topics read them again now rather than at their next periodic refresh.
  virtual awaitable<void> policies_changed(std::string namespace_name) = 0;

  // Every loaded topic's stats, for /metrics.
  virtual awaitable<std::map<std::string, topic_stats>> all_stats() = 0;
  virtual awaitable<broker_metrics> metrics() = 0;
};

}  // namespace magnetar::broker
