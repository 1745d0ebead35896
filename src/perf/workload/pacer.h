// pacer: fixed-rate scheduling of paced sends: the IoT gateways', and magnetar-perf's
// produce, pubsub and st-split (the one pacer of src/perf).
//
// Message i is due at start + i / rate. The sender waits for that time and records
// latency from it as well as from the actual send, so a stall that delays every later
// send shows up in their latency instead of being hidden (no coordinated omission).
// Rate 0 means no pacing: every message is due at once (at the start).
//
// Not thread-safe: one sending thread owns it.
#pragma once

#include <chrono>
#include <cstdint>

namespace magnetar::perf {

class pacer {
 public:
  using clock = std::chrono::steady_clock;

  pacer(double rate, clock::time_point start) : _rate(rate), _start(start) {}

  // When message `index` (counted from the pacer's start) is due.
  clock::time_point due(std::uint64_t index) const {
    if (_rate <= 0) return _start;
    return _start + std::chrono::duration_cast<clock::duration>(std::chrono::duration<double>(index / _rate));
  }

  // Sleeps until message `index` is due (at once when it is overdue); returns the due time.
  clock::time_point wait(std::uint64_t index) const;

 private:
  double _rate;
  clock::time_point _start;
};

}  // namespace magnetar::perf
