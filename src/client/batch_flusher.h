// batch_flusher: the timer behind the producers' batching delay, one per io thread and
// shared by the producers that live there.
//
// With a timer of its own, each producer's batch woke the io thread on its own: 500
// producers of one message a batch each (IoT gateways, one device per batch) cost
// 30,000 wake-ups and as many socket writes a second at 30,000 msg/s. Here a batch is
// flushed at its deadline or, when the timer fires for another batch anyway, up to a
// quarter of its delay before it (never later), so the batches due about together go
// out in one wake-up and, through the connection's write queue, mostly in one write.
// A lone producer's batch still waits its full delay.
//
// Thread-safe: schedule() from any thread (a producer's, under its lock); the flushes run
// on the io thread, with no lock of the flusher's held.
#pragma once

#include "io/asio.h"

#include <chrono>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <vector>

namespace magnetar::client_detail {

class batch_flusher : public std::enable_shared_from_this<batch_flusher> {
 public:
  using clock = std::chrono::steady_clock;

  explicit batch_flusher(asio::any_io_executor executor);

  // Runs `flush` on the io thread once `delay` has passed, or up to delay / 4 sooner
  // together with another batch's flush.
  void schedule(clock::duration delay, std::function<void()> flush);

  // Batches waiting for their flush (for tests).
  std::size_t waiting() const;

 private:
  struct waiting_batch {
    clock::time_point deadline;
    clock::time_point earliest;
    std::function<void()> flush;
  };

  // On the io thread: arms the timer for the earliest deadline, unless armed for it.
  void arm();
  void on_timer();

  asio::steady_timer _timer;  // touched on the io thread only
  // When the wait in flight fires (io thread only): none once it fired. (The timer's
  // expiry stays after it fired, so it can't tell.)
  std::optional<clock::time_point> _waiting_for;
  mutable std::mutex _mutex;
  std::vector<waiting_batch> _waiting;
  // When the timer fires (armed, or an arm() posted for it).
  std::optional<clock::time_point> _fires_at;
};

}  // namespace magnetar::client_detail
