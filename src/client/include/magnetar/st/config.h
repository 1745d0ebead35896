// Configuration of the scalable-topic SDK (magnetar::st): producer_config,
// queue_consumer_config and stream_consumer_config. The client itself takes the
// classic magnetar::client_config.
//
// Plain value types: fill one in and pass it to st::client, which copies it.
#pragma once

#include "magnetar/config.h"

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <map>
#include <string>

namespace magnetar::st {

using namespace std::chrono_literals;

struct producer_config {
  // Empty: the broker names each segment's producer. Set: "<name>-seg-<segment id>".
  std::string producer_name;
  // Shared: segment producers are made on a segment's first message. The exclusive
  // modes make one on every active segment at once (create fails if one can't be made).
  producer_access_mode access_mode = producer_access_mode::shared;
  std::chrono::milliseconds send_timeout = 30s;  // 0: no timeout
  // Messages accepted and not yet stored, over all segments.
  std::size_t max_pending_messages = 1000;
  // When max_pending_messages are pending: wait for room (true, upstream's st default),
  // or fail with producer_queue_is_full (false). Never waits on a client io thread.
  bool block_if_queue_full = true;
  bool batching_enabled = true;
  unsigned batching_max_messages = 1000;
  std::size_t batching_max_bytes = 128 * 1024;
  std::chrono::milliseconds batching_max_delay = 10ms;
  compression_type compression = compression_type::none;
  std::int64_t initial_sequence_id = -1;
  std::map<std::string, std::string> properties;
};

struct queue_consumer_config {
  initial_position position = initial_position::latest;
  // Set: each segment's consumer is "<name>-seg-<segment id>"; empty: the broker names it.
  std::string consumer_name;
  // Flow permits per segment.
  unsigned receiver_queue_size = 1000;
  // The shared receive queue all segments feed.
  std::size_t receive_queue_capacity = 1000;
  std::chrono::milliseconds ack_group_time = 100ms;
  std::chrono::milliseconds negative_ack_redelivery_delay = 1min;
  std::map<std::string, std::string> properties;
};

struct stream_consumer_config {
  initial_position position = initial_position::latest;
  // The controller's key for this consumer, kept across reconnects (a consumer that
  // comes back within the broker's grace period gets its segments back). Empty:
  // "v5-stream-" and 8 random hex digits.
  std::string consumer_name;
  unsigned receiver_queue_size = 1000;
  std::size_t receive_queue_capacity = 1000;
  std::chrono::milliseconds ack_group_time = 100ms;
  std::map<std::string, std::string> properties;
};

}  // namespace magnetar::st
