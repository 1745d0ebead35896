#include "broker/shared_dispatcher.h"

#include "broker/consumer.h"
#include "broker/entry_format.h"
#include "broker/subscription.h"
#include "broker/topic.h"

#include <algorithm>
#include <limits>

namespace magnetar::broker {

result<void> shared_dispatcher::consumer_added(consumer& /*c*/, const proto::CommandSubscribe& /*request*/) {
  dispatch();
  return success();
}

void shared_dispatcher::consumer_removed(consumer& c) {
  give_back(c, c.take_unacked());
  dispatch();
}

void shared_dispatcher::redeliver(consumer& c, const std::vector<mledger::position>& which) {
  give_back(c, which.empty() ? c.take_unacked() : c.take_unacked(which));
  dispatch();
}

void shared_dispatcher::give_back(consumer& c, std::map<mledger::position, pending_entry> entries) {
  taken_back(c, entries);
  for (const auto& [pos, what] : entries) {
    _sub.count_redelivery(pos);
    add_replay(pos, what.key_hash);
  }
}

void shared_dispatcher::taken_back(consumer& /*c*/, const std::map<mledger::position, pending_entry>& /*entries*/) {}

void shared_dispatcher::entry_acked(mledger::position p, consumer* /*owner*/, std::uint16_t /*key_hash*/) {
  remove_replay(p);
}

void shared_dispatcher::cursor_moved() {
  _replay.clear();
  _replay_hashes.clear();
}

void shared_dispatcher::add_replay(mledger::position p, std::uint16_t key_hash) {
  if (_replay.emplace(p, key_hash).second) ++_replay_hashes[key_hash];
}

void shared_dispatcher::remove_replay(mledger::position p) {
  auto it = _replay.find(p);
  if (it == _replay.end()) return;
  auto h = _replay_hashes.find(it->second);
  if (--h->second == 0) _replay_hashes.erase(h);
  _replay.erase(it);
}

shared_dispatcher::replay_iterator shared_dispatcher::skip_acked_replay(replay_iterator it) {
  while (it != _replay.end() && _sub.is_acked(it->first)) {
    auto h = _replay_hashes.find(it->second);
    if (--h->second == 0) _replay_hashes.erase(h);
    it = _replay.erase(it);
  }
  return it;
}

bool shared_dispatcher::can_receive(const consumer& c) const {
  return c.permits() > 0 && !_sub.over_unacked_limit(c);
}

dispatcher::read_plan shared_dispatcher::plan_read() {
  read_plan plan;
  if (_sub.over_unacked_limit()) return plan;
  std::int64_t permits = 0;
  for (const auto& c : _sub.consumers()) {
    if (can_receive(*c)) permits += c->permits();
  }
  if (permits <= 0) return plan;
  const auto max = std::min<std::size_t>(_sub.owner().config().dispatcher_max_read_batch_size,
                                         static_cast<std::size_t>(permits));
  plan.replay = pick_replay(max);
  plan.new_entries = new_entries_allowed(max);
  return plan;
}

std::vector<mledger::position> shared_dispatcher::pick_replay(std::size_t max) {
  std::vector<mledger::position> out;
  for (auto it = first_replay(); it != replay_end() && out.size() < max; it = next_replay(it)) {
    out.push_back(it->first);
  }
  return out;
}

void shared_dispatcher::deliver(std::vector<mledger::entry> entries, bool replayed) {
  delivery_starts();
  for (const auto& e : entries) {
    if (_sub.is_acked(e.pos)) {
      remove_replay(e.pos);
      continue;
    }
    auto metadata = entry_metadata(e.data);
    const int messages = metadata ? messages_in(metadata.value()) : 1;
    const std::uint16_t hash = metadata ? key_hash_of(metadata.value()) : 0;
    consumer* c = choose(hash, replayed);
    if (c == nullptr) {
      add_replay(e.pos, hash);
      continue;
    }
    remove_replay(e.pos);
    _sub.send(*c, e, pending_entry{messages, hash});
  }
}

consumer* shared_dispatcher::choose(std::uint16_t /*key_hash*/, bool /*replayed*/) { return next_round_robin(); }

consumer* shared_dispatcher::next_round_robin() {
  const auto& consumers = _sub.consumers();
  int best = std::numeric_limits<int>::max();
  for (const auto& c : consumers) {
    if (can_receive(*c)) best = std::min(best, c->priority_level());
  }
  if (best == std::numeric_limits<int>::max()) return nullptr;
  const auto n = consumers.size();
  for (std::size_t i = 0; i < n; ++i) {
    const auto index = (_next + i) % n;
    auto& c = *consumers[index];
    if (c.priority_level() == best && can_receive(c)) {
      _next = index + 1;
      return &c;
    }
  }
  return nullptr;
}

}  // namespace magnetar::broker
