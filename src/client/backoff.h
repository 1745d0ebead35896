// backoff: the delays between reconnect attempts: `initial`, doubled after each failed
// attempt, capped at `max`; reset() after a success starts over.
//
// No jitter: many clients of one broker reconnect at spread-out times anyway (their
// connections dropped at different moments), and a deterministic sequence keeps tests
// exact. Not thread-safe: one per producer/consumer, used under its lock.
#pragma once

#include <chrono>

namespace magnetar::client_detail {

class backoff {
 public:
  using duration = std::chrono::milliseconds;

  backoff(duration initial, duration max)
      : _initial(initial.count() > 0 ? initial : duration(1)), _max(max < _initial ? _initial : max), _next(_initial) {}

  // The delay before the next attempt; later calls return longer ones.
  duration next() {
    const duration current = _next;
    _next = _next >= _max / 2 ? _max : _next * 2;
    return current;
  }
  void reset() { _next = _initial; }

 private:
  duration _initial;
  duration _max;
  duration _next;
};

}  // namespace magnetar::client_detail
