#include "client/ack_tracker.h"

#include <algorithm>

namespace magnetar::client_detail {

std::vector<std::int64_t> encode_ack_set(const std::vector<bool>& unacked) {
  std::vector<std::int64_t> words((unacked.size() + 63) / 64, 0);
  for (std::size_t i = 0; i < unacked.size(); ++i) {
    if (!unacked[i]) continue;
    words[i / 64] = static_cast<std::int64_t>(static_cast<std::uint64_t>(words[i / 64]) | (1ull << (i % 64)));
  }
  while (!words.empty() && words.back() == 0) words.pop_back();
  return words;
}

std::vector<std::int64_t> batch_ack_tracker::ack_set_of(const message_id& id) const {
  auto it = _entries.find(id.entry());
  if (it != _entries.end()) return encode_ack_set(it->second.unacked);
  return encode_ack_set(std::vector<bool>(static_cast<std::size_t>(std::max(0, id.batch_size())), true));
}

batch_ack_tracker::batch& batch_ack_tracker::entry_of(const message_id& id) {
  auto [it, inserted] = _entries.try_emplace(id.entry());
  if (inserted) {
    it->second.unacked.assign(static_cast<std::size_t>(id.batch_size()), true);
    it->second.left = static_cast<std::size_t>(id.batch_size());
  }
  return it->second;
}

bool batch_ack_tracker::ack(batch& b, std::size_t index) {
  // An id claiming a larger batch than the entry's first one did (a damaged message):
  // nothing of this entry to ack there.
  if (index >= b.unacked.size()) return b.left == 0;
  if (b.unacked[index]) {
    b.unacked[index] = false;
    --b.left;
  }
  return b.left == 0;
}

bool batch_ack_tracker::ack_individual(const message_id& id) {
  if (!id.is_batched() || id.batch_size() <= 0 || id.batch_index() >= id.batch_size()) return true;
  if (!ack(entry_of(id), static_cast<std::size_t>(id.batch_index()))) return false;
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
  auto& b = entry_of(id);
  const auto upto = std::min(static_cast<std::size_t>(id.batch_index()) + 1, b.unacked.size());
  bool done = b.left == 0;
  for (; b.acked_prefix < upto; ++b.acked_prefix) done = ack(b, b.acked_prefix);
  if (!done) return false;
  _entries.erase(id.entry());
  return true;
}

bool ack_grouping::add_individual(const message_id& entry) {
  _partial.erase(entry);
  // A cumulative ack inside a batch covers the entries before its own only.
  if (_cumulative && (entry < *_cumulative || (entry == *_cumulative && _cumulative_ack_set.empty()))) return false;
  _individual.insert(entry);
  return _individual.size() + _partial.size() >= _max_individual;
}

void ack_grouping::add_cumulative(const message_id& entry) {
  if (!_cumulative || *_cumulative <= entry) {
    _cumulative = entry;
    _cumulative_ack_set.clear();
  }
  _individual.erase(_individual.begin(), _individual.upper_bound(*_cumulative));
  _partial.erase(_partial.begin(), _partial.upper_bound(*_cumulative));
}

bool ack_grouping::add_partial(const message_id& entry, std::vector<std::int64_t> ack_set) {
  if (_individual.contains(entry) || (_cumulative && entry < *_cumulative)) return false;
  _partial[entry] = std::move(ack_set);
  return _individual.size() + _partial.size() >= _max_individual;
}

void ack_grouping::add_partial_cumulative(const message_id& entry, std::vector<std::int64_t> ack_set) {
  if (_cumulative && (entry < *_cumulative || (entry == *_cumulative && _cumulative_ack_set.empty()))) return;
  _cumulative = entry;
  _cumulative_ack_set = std::move(ack_set);
  // Entries before it are covered; this one's own acks stay (they may ack more of it).
  _individual.erase(_individual.begin(), _individual.lower_bound(entry));
  _partial.erase(_partial.begin(), _partial.lower_bound(entry));
}

bool ack_grouping::is_pending(const message_id& entry) const {
  const bool covered = _cumulative && (entry < *_cumulative || (entry == *_cumulative && _cumulative_ack_set.empty()));
  return covered || _individual.contains(entry);
}

ack_grouping::group ack_grouping::take() {
  group g;
  g.individual.assign(_individual.begin(), _individual.end());
  g.cumulative = _cumulative;
  g.cumulative_ack_set = _cumulative_ack_set;
  g.partial.assign(_partial.begin(), _partial.end());
  clear();
  return g;
}

void ack_grouping::clear() {
  _individual.clear();
  _cumulative.reset();
  _cumulative_ack_set.clear();
  _partial.clear();
}

}  // namespace magnetar::client_detail
