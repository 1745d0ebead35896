#include "client/ack_tracker.h"

namespace magnetar::client_detail {

std::vector<bool>& batch_ack_tracker::entry_of(const message_id& id) {
  auto [it, inserted] = _entries.try_emplace(id.entry());
  if (inserted) it->second.assign(static_cast<std::size_t>(id.batch_size()), true);
  return it->second;
}

bool batch_ack_tracker::ack_individual(const message_id& id) {
  if (!id.is_batched() || id.batch_size() <= 0 || id.batch_index() >= id.batch_size()) return true;
  auto& remaining = entry_of(id);
  remaining[static_cast<std::size_t>(id.batch_index())] = false;
  for (bool r : remaining) {
    if (r) return false;
  }
  _entries.erase(id.entry());
  return true;
}

bool batch_ack_tracker::ack_cumulative(const message_id& id) {
  // Everything in earlier entries is covered by the cumulative ack itself.
  _entries.erase(_entries.begin(), _entries.lower_bound(id.entry()));
  if (!id.is_batched() || id.batch_size() <= 0 || id.batch_index() >= id.batch_size()) {
    _entries.erase(id.entry());
    return true;
  }
  auto& remaining = entry_of(id);
  for (std::size_t i = 0; i <= static_cast<std::size_t>(id.batch_index()); ++i) remaining[i] = false;
  for (bool r : remaining) {
    if (r) return false;
  }
  _entries.erase(id.entry());
  return true;
}

bool ack_grouping::add_individual(const message_id& entry) {
  if (_cumulative && entry <= *_cumulative) return false;
  _individual.insert(entry);
  return _individual.size() >= _max_individual;
}

void ack_grouping::add_cumulative(const message_id& entry) {
  if (!_cumulative || *_cumulative < entry) _cumulative = entry;
  _individual.erase(_individual.begin(), _individual.upper_bound(*_cumulative));
}

bool ack_grouping::is_pending(const message_id& entry) const {
  return (_cumulative && entry <= *_cumulative) || _individual.contains(entry);
}

ack_grouping::group ack_grouping::take() {
  group g;
  g.individual.assign(_individual.begin(), _individual.end());
  g.cumulative = _cumulative;
  clear();
  return g;
}

void ack_grouping::clear() {
  _individual.clear();
  _cumulative.reset();
}

}  // namespace magnetar::client_detail
