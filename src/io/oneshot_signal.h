// oneshot_signal: one coroutine waits, any thread wakes it, once.
//
// The waiter resumes on the executor given at construction, which must run
// one thread at a time (a shard, or a strand). fire() may be
// called from any thread, before or after wait() starts, and more than once
// (later calls do nothing). The state is shared, so a fire() that races with
// the waiter's destruction is safe.
#pragma once

#include "io/asio.h"

#include <atomic>
#include <memory>

namespace magnetar::io {

class oneshot_signal {
 public:
  explicit oneshot_signal(asio::any_io_executor executor);

  // Completes once fire() has been called (at once when it already was).
  awaitable<void> wait();
  void fire();
  bool fired() const;

 private:
  struct state {
    explicit state(const asio::any_io_executor& executor) : timer(executor) {}
    // A timer that never expires on its own: cancelling it is the wake-up.
    asio::steady_timer timer;
    std::atomic<bool> fired{false};
  };
  std::shared_ptr<state> _state;
};

}  // namespace magnetar::io
