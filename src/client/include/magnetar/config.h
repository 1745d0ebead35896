// Configuration of the client SDK: client_config, producer_config, consumer_config and
// reader_config, with upstream Pulsar's defaults.
//
// Plain value types: fill one in, pass it to client::create / create_producer /
// subscribe / create_reader, which copy it.
#pragma once

#include "magnetar/client_resources.h"
#include "magnetar/message_id.h"

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

namespace magnetar {

using namespace std::chrono_literals;

struct client_config {
  // Threads that run connections, timers and callbacks.
  unsigned io_threads = 1;
  // Threads shared with other clients (client_resources.h); when set, io_threads is not
  // used and the client starts no threads of its own.
  std::shared_ptr<client_resources> shared_resources;
  // Bound on every request to the broker (lookup, create producer, subscribe, seek...).
  std::chrono::milliseconds operation_timeout = 30s;
  // Bound on TCP connect plus the CONNECT/CONNECTED handshake.
  std::chrono::milliseconds connection_timeout = 10s;
  // Connections per broker; producers and consumers are spread over them.
  unsigned max_connections_per_broker = 1;
  // A connection idle this long is pinged; one that stays silent for another interval
  // is closed (and its producers and consumers reconnect).
  std::chrono::milliseconds keep_alive_interval = 30s;
  // Reconnect backoff after a connection drops or a broker closes a producer/consumer:
  // initial delay, doubled per failed attempt, up to max.
  std::chrono::milliseconds initial_backoff = 100ms;
  std::chrono::milliseconds max_backoff = 30s;
  // Lookup redirects followed before giving up.
  unsigned max_lookup_redirects = 20;
  // Largest frame accepted from a broker before CONNECTED says otherwise.
  std::size_t max_frame_size = 5 * 1024 * 1024;
  // Threads that run consumers' message listeners (consumer_config::message_listener),
  // started with the first such consumer; each consumer's listener runs on one of them.
  unsigned message_listener_threads = 1;
  // Authentication (upstream's authPlugin and authParams): the token plugin
  // ("org.apache.pulsar.client.impl.auth.AuthenticationToken" or "token"; assumed when
  // only auth_params is set) with "token:<jwt>", "file:///path/to/token" (read at every
  // connect and refresh) or {"token": "..."}. Both empty: no credentials. An expired
  // token is replaced when the broker asks (AUTH_CHALLENGE) by reading auth_params again.
  std::string auth_plugin;
  std::string auth_params;
  // TLS, for pulsar+ssl:// service URLs (upstream's tlsTrustCertsFilePath,
  // tlsAllowInsecureConnection, tlsHostnameVerificationEnable, and a certificate of the
  // client's own for mutual TLS; its CN is the role with the broker's TLS provider).
  std::string tls_trust_certs_file_path;  // PEM CAs; empty: the system's
  bool tls_allow_insecure_connection = false;
  bool tls_validate_hostname = false;
  std::string tls_certificate_file_path;
  std::string tls_private_key_file_path;
};

enum class compression_type { none, lz4, zlib, zstd, snappy };

// How a producer on a partitioned topic picks each message's partition (upstream's
// PartitionsRoutingMode). Keyed messages go by the key's hash in round_robin and
// single_partition alike; custom hands every message to producer_config::message_router.
enum class partition_routing_mode {
  round_robin,       // keyless: one partition per batch window (or per message unbatched)
  single_partition,  // keyless: one partition picked at random when the producer starts
  custom,
};

// The hash of a message key that picks its partition (hash % partitions), computed
// exactly as upstream's C++ client does so that keys land on the same partitions.
// upstream's C++ default is BoostHash, whose value changes with the Boost version the
// client is built against; magnetar defaults to murmur3_32 (as Java clients use).
enum class hashing_scheme {
  murmur3_32,        // Murmur3_32Hash: murmur3 x86 32-bit, seed 0, masked to 31 bits
  java_string_hash,  // JavaStringHash: 31 * h + byte (bytes as signed char), masked
};

class message;

enum class producer_access_mode {
  shared,                  // any number of producers
  exclusive,               // one; creating a second fails with producer_fenced (producer_busy for a shared one)
  wait_for_exclusive,      // one; a second waits until the first goes
  exclusive_with_fencing,  // one; a newcomer fences the current one out
};

enum class batching_type {
  default_batching,  // one batch for all messages
  key_based,         // one batch per key, so a batch never mixes keys (Key_Shared)
};

struct producer_config {
  // Empty: the broker picks a unique name.
  std::string producer_name;
  std::chrono::milliseconds send_timeout = 30s;  // 0: no timeout
  // Messages awaiting their receipt (batched messages count one each).
  std::size_t max_pending_messages = 1000;
  // When the pending queue is full: block send/send_async until there is room (true),
  // or fail with producer_queue_is_full (false, upstream's default).
  bool block_if_queue_full = false;
  bool batching_enabled = true;
  unsigned batching_max_messages = 1000;
  std::size_t batching_max_bytes = 128 * 1024;
  std::chrono::milliseconds batching_max_delay = 10ms;
  batching_type batching = batching_type::default_batching;
  // Only none, lz4 and zstd are implemented; others fail create_producer.
  compression_type compression = compression_type::none;
  producer_access_mode access_mode = producer_access_mode::shared;
  // Sequence id of the first message when the broker knows none for this producer name.
  std::int64_t initial_sequence_id = -1;
  std::map<std::string, std::string> properties;

  // Partitioned topics only (see partition_routing_mode). upstream's defaults, but the
  // hashing scheme.
  partition_routing_mode routing_mode = partition_routing_mode::round_robin;
  hashing_scheme hashing = hashing_scheme::murmur3_32;
  // routing_mode custom: the partition, in [0, partitions), for a message. Called under
  // the producer's lock on the sending thread: keep it short and don't send from it.
  std::function<unsigned(const message& m, unsigned partitions)> message_router;
  // Start each partition's producer on its first message instead of at creation (the
  // first partition the router picks starts at once, so errors show at creation).
  bool lazy_start_partitioned_producers = false;
  // Caps max_pending_messages per partition at this divided by the partition count.
  std::size_t max_pending_messages_across_partitions = 50000;
};

enum class subscription_type { exclusive, shared, failover, key_shared };
enum class initial_position { latest, earliest };

class consumer;

// How a Key_Shared subscription splits the key hash space (0..65535, upstream's
// Murmur3 hash of the key modulo 65536) among its consumers.
enum class key_shared_mode {
  auto_split,  // the broker splits the hash space among the consumers as they come and go
  sticky,      // each consumer names the ranges it takes (sticky_ranges)
};

// An inclusive range of key hashes, [start, end], within 0..65535.
struct hash_range {
  int start = 0;
  int end = 0;
  friend bool operator==(const hash_range&, const hash_range&) = default;
};

// Key_Shared settings (upstream's KeySharedPolicy); used only on Key_Shared subscriptions.
struct key_shared_policy {
  key_shared_mode mode = key_shared_mode::auto_split;
  // Sticky mode: the ranges this consumer takes; not empty, within 0..65535, and not
  // overlapping (subscribe fails with invalid_argument otherwise).
  std::vector<hash_range> sticky_ranges;
  // Let the broker deliver a key's messages to a new consumer before the previous
  // consumer has acknowledged the ones it got (faster rebalancing, no per-key order).
  bool allow_out_of_order_delivery = false;
};

// Dead letter and retry topics (upstream's DeadLetterPolicy). A message delivered more
// than max_redeliver_count times (that is, one arriving with a redelivery count above it)
// is published to the dead letter topic and acknowledged, instead of reaching the
// application again. 0: no dead letter topic.
struct dead_letter_policy {
  int max_redeliver_count = 0;
  // Empty: "<topic>-<subscription>-DLQ".
  std::string dead_letter_topic;
  // Where consumer::reconsume_later publishes (consumer_config::retry_enable). Empty:
  // "<topic>-<subscription>-RETRY".
  std::string retry_letter_topic;
  // A subscription the broker creates on the dead letter topic together with its
  // producer, so dead letters are kept before anyone subscribes. Empty: none.
  std::string initial_subscription_name;
};

struct consumer_config {
  subscription_type type = subscription_type::exclusive;
  initial_position position = initial_position::latest;
  // Empty: a random name.
  std::string consumer_name;
  int priority_level = 0;
  // Messages the broker may push ahead of receive() (flow permits).
  unsigned receiver_queue_size = 1000;
  // Multi-topic and partitioned consumers: each topic's or partition's queue is the
  // smaller of receiver_queue_size and this divided by their number (upstream's default).
  unsigned max_total_receiver_queue_size_across_partitions = 50000;
  // Pattern (regex) subscriptions: how often the namespace is listed again to pick up
  // new topics and drop deleted ones (upstream's default, 60 s).
  std::chrono::milliseconds pattern_auto_discovery_period = 60s;
  // Individual and cumulative acks are sent in groups this often (0: at once).
  std::chrono::milliseconds ack_group_time = 100ms;
  // Flushed earlier when this many individual acks are waiting.
  std::size_t max_acks_per_group = 1000;
  std::map<std::string, std::string> properties;
  // Failover: called (on an io thread) when this consumer becomes active or inactive.
  std::function<void(bool active)> active_consumer_listener;
  // Called with each message, in order, on one of the client's listener threads
  // (client_config::message_listener_threads), instead of receive calls: those then
  // fail with invalid_argument. It is given this consumer (to acknowledge with, as from
  // anywhere). A listener that throws has the exception logged, and the next message
  // follows. The messages stop when the consumer closes (none is handed over once it is
  // closing; client::close returns once no listener runs) or when every handle to it is
  // gone, and at the end of a terminated topic (a later seek does not restart them).
  std::function<void(consumer&, const message&)> message_listener;
  // Key_Shared subscriptions only: how keys are split (sent with the subscribe).
  magnetar::key_shared_policy key_shared_policy;
  // Negatively acknowledged messages are redelivered this long after the nack (nacks
  // are gathered into one redelivery request). At least 100 ms, as upstream.
  std::chrono::milliseconds negative_ack_redelivery_delay = 1min;
  // Messages the application took but did not acknowledge within this time are
  // redelivered. 0: off; otherwise at least 1 s. Checked every ack_timeout_tick (the
  // timeout is kept to within one tick).
  std::chrono::milliseconds ack_timeout = 0ms;
  std::chrono::milliseconds ack_timeout_tick = 1s;
  // Dead letter topic and retry topic; see dead_letter_policy.
  magnetar::dead_letter_policy dead_letter_policy;
  // Allows consumer::reconsume_later, which publishes to the retry letter topic. As
  // upstream's Java client, client::subscribe to one topic then subscribes to the topic
  // and its retry letter topic (one consumer over both, on the same subscription), and
  // fills in the dead letter and retry topic names from that topic when they are empty.
  bool retry_enable = false;
  // Acks of single messages of a batch go to the broker at once, with the batch's
  // still-unacknowledged indexes (upstream's enableBatchIndexAcknowledgment), instead of
  // one ack when the whole batch is acknowledged. Needs a broker that keeps them.
  bool batch_index_ack_enabled = false;
};

struct reader_config {
  // earliest(), latest() or a message id of the topic.
  message_id start = message_id::latest();
  // Include the message at `start` itself (a specific id or latest()).
  bool start_inclusive = false;
  std::string reader_name;
  unsigned receiver_queue_size = 1000;
};

}  // namespace magnetar
