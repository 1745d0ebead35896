// backoff: the delays between reconnect attempts: `initial`, doubled after each failed
// attempt, capped at `max`; reset() after a success starts over.
//
// A topic that is moving (its owner unreachable while the cluster answers lookups, or
// the broker saying it isn't ready) is tried again at least every topic_moving_cap:
// the new owner takes over when the dead one's ZooKeeper session expires, which a
// client can't see coming, and a delay that had doubled to seconds by then would add
// up to that much to every failover. What it costs is a lookup to a live broker twice
// a second while the move lasts.
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

  static constexpr duration topic_moving_cap{500};

  // The delay before the next attempt; later calls return longer ones, up to `max` (up
  // to topic_moving_cap when `topic_moving`).
  duration next(bool topic_moving = false) {
    const duration current = _next;
    _next = _next >= _max / 2 ? _max : _next * 2;
    return topic_moving && current > topic_moving_cap ? topic_moving_cap : current;
  }
  void reset() { _next = _initial; }

 private:
  duration _initial;
  duration _max;
  duration _next;
};

}  // namespace magnetar::client_detail
