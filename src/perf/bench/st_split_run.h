// st_split_run: magnetar-perf st-split: a scalable topic kept under load through a split
// and a merge (issue 8's performance goal). One st producer publishes keyed messages at
// a fixed rate (workload/pacer.h); one stream consumer reads from the earliest and
// acknowledges as it goes; the broker splits segment 0 at split_at and merges the two
// children at merge_at.
//
// Measured: publish latency from each message's intended send time (a stall shows up in
// every message it delays, no coordinated omission), its maximum per 100 ms window and
// around each layout change (windowed_max.h); the consumer's longest gap between two
// deliveries, overall and around each change; and correctness: every stored message
// received, per-key order (each payload carries its key's sequence number,
// key_sequences.h), duplicates.
//
// Thread-safety: run_st_split blocks the calling thread until done (duration, then
// draining up to drain_timeout); separate calls share nothing.
#pragma once

#include "base/histogram.h"
#include "base/result.h"

#include <chrono>
#include <cstdint>
#include <string>

namespace magnetar::perf {

struct st_split_options {
  std::string service_url = "pulsar://localhost:6650";
  std::string admin_url = "http://localhost:8080";
  std::string topic;  // empty: topic://public/default/st-split-<unix seconds>
  double rate = 30'000;
  std::size_t message_size = 100;
  unsigned keys = 1'000;
  std::chrono::seconds duration{30};
  std::chrono::seconds split_at{10};
  std::chrono::seconds merge_at{20};
  std::chrono::seconds drain_timeout{30};
};

// How long after a layout change its effects are attributed to it.
inline constexpr std::chrono::seconds layout_change_effect_window{5};

// A layout change and what the clients saw around it (the window starts at the admin
// call and lasts layout_change_effect_window).
struct layout_change_effect {
  double at_seconds = 0;     // since the producer started
  double admin_call_ms = 0;  // the REST call's duration
  double max_publish_latency_ms = 0;
  double max_delivery_gap_ms = 0;
};

struct st_split_results {
  std::string topic;
  std::uint64_t sent = 0;  // receipted
  std::uint64_t send_errors = 0;
  std::uint64_t received = 0;
  std::uint64_t unique = 0;
  std::uint64_t duplicates = 0;
  std::uint64_t out_of_order = 0;  // a key's message after a later one of that key
  std::uint64_t missing = 0;
  double produce_seconds = 0;
  base::histogram publish_latency_us{3'600'000'000, 3};
  double steady_max_publish_latency_ms = 0;  // before the split, after the first second
  double steady_max_delivery_gap_ms = 0;
  layout_change_effect split;
  layout_change_effect merge;
};

// invalid_argument unless rate and keys are above 0 and split_at < merge_at < duration.
result<void> validate(const st_split_options& options);
// The options' topic, or topic://public/default/st-split-<unix seconds of `now`>.
std::string st_split_topic(const st_split_options& options, std::chrono::system_clock::time_point now);

result<st_split_results> run_st_split(const st_split_options& options);

}  // namespace magnetar::perf
