// catch_up_tracker: when a late application (one that joins a live stream after the
// measurement started) has caught up with the gateways.
//
// Caught up: after the join, every topic has delivered a measured message within the
// threshold (applications.caughtUpLatencyMillis) of its publishing. The catch-up time is
// the latest of those topics' first such receipts, not the receipt that happened to be
// recorded last: pods record concurrently, so a receipt may be recorded after a later one.
// The first catch-up counts; later receipts change nothing.
//
// Thread-safe: every pod of the application records into one tracker. A receipt outside
// the threshold, before the join or after the catch-up costs two atomic loads; only
// receipts within the threshold take the lock.
#pragma once

#include <atomic>
#include <cstdint>
#include <functional>
#include <mutex>
#include <vector>

namespace magnetar::perf {

class catch_up_tracker {
 public:
  catch_up_tracker(int topics, std::int64_t threshold_millis);

  // The application opened its pods at `epoch_millis`.
  void joined(std::int64_t epoch_millis);

  // A measured message of topic `topic` (0-based), published at `publish_millis` and
  // received at `received_millis` (epoch milliseconds). `messages` gives the
  // application's message count; it is read once, when this receipt completes the
  // catch-up. Returns true for that receipt only.
  bool received(int topic, std::int64_t publish_millis, std::int64_t received_millis,
                const std::function<std::uint64_t()>& messages);

  // 0 until joined / caught up.
  std::int64_t join_millis() const { return _join_millis.load(std::memory_order_acquire); }
  std::int64_t caught_up_millis() const { return _caught_up_millis.load(std::memory_order_acquire); }
  std::uint64_t messages_when_caught_up() const;
  std::int64_t threshold_millis() const { return _threshold_millis; }

 private:
  const std::int64_t _threshold_millis;
  std::atomic<std::int64_t> _join_millis{0};
  std::atomic<std::int64_t> _caught_up_millis{0};
  mutable std::mutex _mutex;
  std::vector<std::int64_t> _first_in_threshold;  // per topic; 0: none yet
  int _topics_in_threshold = 0;
  std::uint64_t _messages_when_caught_up = 0;
};

}  // namespace magnetar::perf
