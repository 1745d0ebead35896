#include "perf/measure/catch_up_tracker.h"

#include <algorithm>

namespace magnetar::perf {

catch_up_tracker::catch_up_tracker(int topics, std::int64_t threshold_millis)
    : _threshold_millis(threshold_millis), _first_in_threshold(static_cast<std::size_t>(std::max(topics, 0)), 0) {}

void catch_up_tracker::joined(std::int64_t epoch_millis) {
  _join_millis.store(epoch_millis, std::memory_order_release);
}

bool catch_up_tracker::received(int topic, std::int64_t publish_millis, std::int64_t received_millis,
                                const std::function<std::uint64_t()>& messages) {
  const auto join = _join_millis.load(std::memory_order_acquire);
  if (join == 0 || received_millis < join || _caught_up_millis.load(std::memory_order_acquire) != 0) return false;
  if (received_millis - publish_millis > _threshold_millis) return false;
  if (topic < 0 || static_cast<std::size_t>(topic) >= _first_in_threshold.size()) return false;
  std::lock_guard lock(_mutex);
  if (_caught_up_millis.load(std::memory_order_relaxed) != 0) return false;
  auto& first = _first_in_threshold[static_cast<std::size_t>(topic)];
  if (first != 0) {
    // A receipt recorded late can still be this topic's earliest within the threshold.
    first = std::min(first, received_millis);
    return false;
  }
  first = received_millis;
  if (++_topics_in_threshold < static_cast<int>(_first_in_threshold.size())) return false;
  _messages_when_caught_up = messages();
  _caught_up_millis.store(*std::max_element(_first_in_threshold.begin(), _first_in_threshold.end()),
                          std::memory_order_release);
  return true;
}

std::uint64_t catch_up_tracker::messages_when_caught_up() const {
  std::lock_guard lock(_mutex);
  return _messages_when_caught_up;
}

}  // namespace magnetar::perf
