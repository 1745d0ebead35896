// timer: a coroutine sleeps until a deadline of a base::clock.
//
// With the system clock it is an Asio steady_timer. With a manual clock it
// sleeps until a test advances the clock past the deadline, so tests control
// time instead of waiting for it. A timer belongs to one shard (or other
// single-threaded executor): construct, wait and cancel it there.
#pragma once

#include "base/clock.h"
#include "io/asio.h"

#include <memory>

namespace magnetar::io {

class timer {
 public:
  timer(asio::any_io_executor executor, base::clock& clock);
  ~timer();
  timer(const timer&) = delete;
  timer& operator=(const timer&) = delete;

  // True when the deadline was reached, false when cancel() came first.
  // One wait at a time.
  awaitable<bool> wait_until(base::clock::time_point deadline);
  awaitable<bool> wait_for(base::clock::duration delay);

  // Wakes the current wait with false; no effect when none is pending.
  void cancel();

 private:
  struct manual_wait;

  base::clock& _clock;
  asio::steady_timer _timer;
  std::shared_ptr<manual_wait> _manual;
};

}  // namespace magnetar::io
