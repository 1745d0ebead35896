// telemetry_sender: the gateways' send path. Devices publish in turn (message n of the
// run comes from device n mod devices, through a gateway that rotates, to topic
// device mod topics), each device with one message in flight at most, so a device's
// order holds across gateways and connections; the fleet has at most maxOutstanding in
// flight. A device's sequence advances only when its send is receipted, so a failed send
// is sent again with the same sequence by the device's next turn and leaves no gap.
//
// send() runs on one thread (the gateways' main thread); completions arrive on the
// clients' io threads and take the same lock, which at tens of thousands of messages per
// second costs little next to the send itself.
#pragma once

#include "base/histogram.h"
#include "base/result.h"
#include "perf/measure/latency_summary.h"
#include "perf/measure/timeline.h"
#include "perf/scenario/settings.h"
#include "perf/workload/gateway_fleet.h"
#include "perf/workload/pacer.h"

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <mutex>
#include <string>
#include <vector>

namespace magnetar::perf {

class telemetry_sender {
 public:
  telemetry_sender(const iot_telemetry_settings& settings, gateway_fleet& fleet, timeline& timeline);

  // Sends `count` messages paced by `schedule`, tagged as warmup or measured; returns
  // once all are handed to producers, or timed_out at `deadline`.
  result<void> send(std::uint64_t count, bool warmup, const pacer& schedule,
                    std::chrono::steady_clock::time_point deadline);
  // Waits until every send has completed; timed_out at `deadline`.
  result<void> drain(std::chrono::steady_clock::time_point deadline);

  struct totals {
    std::uint64_t warmup_receipted = 0;
    std::uint64_t measured_receipted = 0;
    std::uint64_t send_errors = 0;
  };
  totals counts() const;
  // Per device, the next sequence: every lower one was receipted.
  std::vector<std::uint64_t> device_state() const;
  // Measured messages only, microseconds: from the send, and from the intended send time.
  base::histogram publish_latency() const;
  base::histogram intended_latency() const;

 private:
  struct in_flight_message {
    std::uint64_t device;
    bool warmup;
    std::chrono::steady_clock::time_point due;
    std::chrono::steady_clock::time_point sent;
  };
  void completed(const in_flight_message& m, bool ok);
  std::int64_t next_producer_sequence(int gateway, int topic, const producer& p);

  const iot_telemetry_settings& _settings;
  gateway_fleet& _fleet;
  timeline& _timeline;
  std::vector<std::byte> _payload;
  std::uint64_t _message_index = 0;  // messages handed over so far, run-wide
  // Explicit producer sequence ids (deduplication), sending thread only; -1: not yet read
  // from the producer.
  std::vector<std::int64_t> _producer_sequence;

  mutable std::mutex _mutex;
  std::condition_variable _changed;
  std::vector<std::uint64_t> _next_sequence;
  std::vector<std::uint8_t> _in_flight;
  std::uint64_t _outstanding = 0;
  totals _totals;
  base::histogram _publish_latency{max_latency_micros, 3};
  base::histogram _intended_latency{max_latency_micros, 3};
  std::size_t _sent_column;
  std::size_t _send_errors_column;
  std::size_t _in_flight_column;
};

}  // namespace magnetar::perf
