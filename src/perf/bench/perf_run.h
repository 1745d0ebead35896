// perf_run: magnetar-perf's produce, consume and pubsub: the producer and consumer loops
// and what they measure.
//
// The producer sends fixed-size messages, either as fast as the pending queue lets it
// or paced at a fixed rate (workload/pacer.h). Paced sends are measured from their
// intended send time, so a stall that delays later sends shows up in their latency (no
// coordinated omission). Each payload starts with its send time (system clock,
// nanoseconds), which the consumer turns into an end-to-end latency; producer and
// consumer must share a clock (one machine).
//
// Thread-safety: run_produce and run_consume block the calling thread until done;
// run_pubsub runs both on their own threads against one topic. Separate calls share
// nothing.
#pragma once

#include "base/histogram.h"
#include "base/result.h"
#include "magnetar/config.h"

#include <chrono>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace magnetar::perf {

struct perf_options {
  std::string service_url = "pulsar://localhost:6650";
  // Credentials, as pulsar-perf's --auth-plugin/--auth-params (client_config's).
  std::string auth_plugin;
  std::string auth_params;
  // TLS for pulsar+ssl:// service URLs, as pulsar-perf's --trust-cert-file and
  // --tls-allow-insecure.
  std::string trust_cert_file;
  bool tls_allow_insecure = false;
  std::string topic = "perf";
  std::string subscription = "perf-sub";
  std::size_t message_size = 100;
  double rate = 0;  // messages per second; 0: as fast as possible
  std::chrono::seconds duration{10};
  bool batching = true;
  unsigned batch_max_messages = 1000;
  std::chrono::milliseconds batch_max_delay{1};
  std::size_t max_pending = 10'000;
  std::string compression = "none";  // none, lz4, zstd
  unsigned receiver_queue_size = 10'000;
  // Exclusive, Shared, Failover or Key_Shared (pulsar-perf's names).
  std::string subscription_type = "Exclusive";
  unsigned consumers = 1;
  // Distinct message keys, given round robin ("key-<n>"); 0: no keys. With keys the
  // producer batches per key (key-based batching), as Key_Shared needs.
  unsigned keys = 0;
  // The consumers' client's message listener threads (pulsar-perf's --num-listener-threads).
  unsigned listener_threads = 1;
  // How long the consumer waits for the last messages once the producer is done.
  std::chrono::seconds drain_timeout{30};
};

struct perf_results {
  std::uint64_t sent = 0;
  std::uint64_t send_errors = 0;
  std::uint64_t received = 0;
  std::vector<std::uint64_t> received_per_consumer;
  std::uint64_t bytes_sent = 0;
  double produce_seconds = 0;
  double consume_seconds = 0;
  // Microseconds.
  base::histogram publish_latency_us{60'000'000, 3};
  base::histogram end_to_end_latency_us{60'000'000, 3};
  // The slowest publish (ms) of each 100 ms of intended send times from the start: when
  // the tail happened (a stall at the start, a periodic one), which percentiles hide.
  std::vector<double> publish_max_ms_by_window;
  static constexpr std::chrono::milliseconds publish_window{100};
};

// The option values, by pulsar-perf's names; invalid_argument naming the choices. The
// producer checks the compression and the consumers the subscription type as they start,
// so `consume` ignores --compression as it always did.
result<compression_type> compression_of(std::string_view name);
result<subscription_type> subscription_type_of(std::string_view name);

result<perf_results> run_produce(const perf_options& options);
result<perf_results> run_consume(const perf_options& options);
// A consumer subscribes first, then the producer runs; done once the consumer has every
// message the producer got a receipt for (or the drain timeout passes).
result<perf_results> run_pubsub(const perf_options& options);

}  // namespace magnetar::perf
