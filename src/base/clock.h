// The one clock that all magnetar code reads time from.
//
// Production code takes a `clock&` and reads now() (monotonic, for timeouts
// and latency) or wall_now() (calendar time, for publish times). Tests pass a
// manual_clock and move time by hand; io's timers ask the manual clock to wake
// them (call_at) instead of sleeping on the real clock.
// Both implementations are thread-safe.
#pragma once

#include <atomic>
#include <chrono>
#include <cstdint>
#include <functional>
#include <map>
#include <mutex>

namespace magnetar::base {

class manual_clock;

class clock {
 public:
  using duration = std::chrono::steady_clock::duration;
  using time_point = std::chrono::steady_clock::time_point;
  using wall_time_point = std::chrono::system_clock::time_point;

  virtual ~clock() = default;

  // Monotonic time: never jumps back.
  virtual time_point now() const noexcept = 0;
  // Calendar time: what a human or another process would call "now".
  virtual wall_time_point wall_now() const noexcept = 0;

  // Non-null when time moves only by hand; timers then register wake-ups.
  virtual manual_clock* as_manual() noexcept { return nullptr; }
};

// The process's real clock (steady_clock and system_clock).
clock& system_clock();

class manual_clock final : public clock {
 public:
  using wakeup_id = std::uint64_t;

  // Starts at an arbitrary non-zero monotonic time and at `wall_start`.
  explicit manual_clock(wall_time_point wall_start = wall_time_point(std::chrono::hours(24 * 365 * 50)));

  time_point now() const noexcept override;
  wall_time_point wall_now() const noexcept override;
  manual_clock* as_manual() noexcept override { return this; }

  // Moves time forward and runs, on this thread and in deadline order, every
  // wake-up that became due. Wake-ups run without the clock's lock held, so
  // they may register or cancel others.
  void advance(duration by);

  // Runs `wakeup` once now() >= deadline: at once (on this thread) when it is
  // already due, else from the advance() that reaches it.
  wakeup_id call_at(time_point deadline, std::function<void()> wakeup);
  // False when the wake-up already ran or was cancelled.
  bool cancel(wakeup_id id);
  std::size_t pending_wakeups() const;

 private:
  const time_point _start;
  const wall_time_point _wall_start;
  std::atomic<duration::rep> _elapsed{0};

  mutable std::mutex _mutex;
  wakeup_id _next_id = 1;
  // Keyed by (deadline, id) so equal deadlines run in registration order.
  std::map<std::pair<time_point, wakeup_id>, std::function<void()>> _wakeups;
  std::map<wakeup_id, time_point> _deadline_of;
};

}  // namespace magnetar::base
