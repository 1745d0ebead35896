// tun_forwarder: the delay line of `magnetar-perf netem-forward`, for kernels without
// netem. It reads each packet the router routes into its TUN device, holds it until its
// release time (now + delay +- jitter) and writes it back into the device, from where
// the kernel forwards it on by the main routing table (delay_path.h sets that up).
//
// Order: without `reorder`, a packet is never released before the one read before it
// (its release time is at least the previous one's), as a link keeps order; with it,
// each packet keeps its own release time, as netem's jitter does.
//
// Accuracy: the wait sleeps in ppoll() with a 1 ns timer slack and spins the last few
// microseconds; each write's lateness against its release time goes into a histogram,
// whose p50/p99 the stats file reports with the packets and bytes forwarded.
//
// Bounded: at most `max_queue_bytes` held; a packet beyond it is dropped and counted, as
// a link's full buffer would.
//
// Thread-safety: run_forwarder() runs on the calling thread until `stop` becomes true
// (a signal handler sets it), the device fails or goes, or the process that started it
// ends (it would otherwise outlive a launcher killed with SIGKILL).
#pragma once

#include "base/result.h"

#include <atomic>
#include <chrono>
#include <cstdint>
#include <filesystem>
#include <string>

namespace magnetar::perf {

struct forwarder_options {
  std::string device;  // an existing TUN device (ip tuntap add ... mode tun)
  std::chrono::microseconds delay{0};
  std::chrono::microseconds jitter{0};
  bool reorder = false;
  std::int64_t max_queue_bytes = 256 * 1024 * 1024;
  std::uint64_t seed = 1;
  std::filesystem::path stats_file;  // JSON, written at the end
  std::filesystem::path ready_file;  // written once the device is open
};

struct forwarder_stats {
  std::uint64_t packets = 0;
  std::uint64_t bytes = 0;
  std::uint64_t dropped = 0;  // over max_queue_bytes
  std::uint64_t max_queued_packets = 0;
  double lateness_p50_us = 0;  // write time minus release time
  double lateness_p99_us = 0;
  double lateness_max_us = 0;
  double seconds = 0;  // from open to stop
};

result<forwarder_stats> run_forwarder(const forwarder_options& options, const std::atomic<bool>& stop);

std::string stats_json(const forwarder_stats& stats);

}  // namespace magnetar::perf
