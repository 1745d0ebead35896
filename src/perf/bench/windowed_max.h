// windowed_max: the largest value recorded in each 100 ms window since a start, and the
// largest over a span of windows: st-split's publish latency and delivery gap around a
// layout change, where a histogram of the whole run would hide when the worst happened.
//
//   windowed_max gaps(std::chrono::seconds(40));   // sized for the run; grows if needed
//   gaps.record(now - start, gap_ms);
//   gaps.max_between(split_at, split_at + std::chrono::seconds(5));
//
// Thread-safety: every member may be called from any thread (one mutex).
#pragma once

#include <chrono>
#include <mutex>
#include <vector>

namespace magnetar::perf {

class windowed_max {
 public:
  using duration = std::chrono::steady_clock::duration;
  static constexpr std::chrono::milliseconds window{100};

  explicit windowed_max(std::chrono::seconds span);

  // `value` at `since_start` (a negative time counts in the first window).
  void record(duration since_start, double value);
  // The largest value of the windows that start in [from, to); 0 when none holds one.
  double max_between(duration from, duration to) const;

 private:
  mutable std::mutex _mutex;
  std::vector<double> _values;  // one per window; 0: nothing recorded
};

}  // namespace magnetar::perf
