#include "client/negative_ack_tracker.h"

#include <algorithm>

namespace magnetar::client_detail {

negative_ack_tracker::negative_ack_tracker(std::chrono::milliseconds delay) : _delay(std::max(delay, min_delay)) {}

void negative_ack_tracker::add(const message_id& id, clock::time_point now) {
  _due.try_emplace(id.entry(), now + _delay);
}

std::vector<message_id> negative_ack_tracker::take_due(clock::time_point now) {
  std::vector<message_id> out;
  for (auto it = _due.begin(); it != _due.end();) {
    if (it->second <= now) {
      out.push_back(it->first);
      it = _due.erase(it);
    } else {
      ++it;
    }
  }
  return out;
}

std::optional<negative_ack_tracker::clock::time_point> negative_ack_tracker::next_due() const {
  std::optional<clock::time_point> earliest;
  for (const auto& [id, due] : _due) {
    if (!earliest || due < *earliest) earliest = due;
  }
  return earliest;
}

void negative_ack_tracker::remove(const message_id& id) { _due.erase(id.entry()); }

void negative_ack_tracker::clear() { _due.clear(); }

}  // namespace magnetar::client_detail
