#include "broker/topic/key_shared_dispatcher.h"

#include "broker/api/errc.h"
#include "broker/topic/consumer.h"
#include "broker/topic/sticky_key.h"
#include "broker/topic/subscription.h"
#include "broker/topic/topic.h"

#include <fmt/format.h>

namespace magnetar::broker {

result<void> key_shared_dispatcher::consumer_added(consumer& c, const proto::CommandSubscribe& request) {
  const auto meta = request.has_keysharedmeta() ? request.keysharedmeta() : proto::KeySharedMeta{};
  if (_selector == nullptr || _sub.consumers().size() == 1) {
    // The first consumer sets the subscription's mode.
    _mode = meta.keysharedmode();
    _allow_out_of_order = meta.allowoutoforderdelivery();
    _selector = _mode == proto::STICKY
                    ? make_sticky_range_selector()
                    : make_consistent_hash_selector(_sub.owner().config().key_shared_consistent_hashing_replica_points);
  } else if (meta.keysharedmode() != _mode) {
    return fail(errc::consumer_busy,
                fmt::format("Key_Shared subscription {} is in mode {}, not {}", _sub.name(),
                            proto::KeySharedMode_Name(_mode), proto::KeySharedMode_Name(meta.keysharedmode())));
  } else if (meta.allowoutoforderdelivery() != _allow_out_of_order) {
    return fail(errc::consumer_busy, fmt::format("Key_Shared subscription {} has allowOutOfOrderDelivery={}",
                                                 _sub.name(), _allow_out_of_order));
  }
  MAGNETAR_TRY(_selector->add(c, meta));
  update_draining();
  dispatch();
  return success();
}

void key_shared_dispatcher::consumer_removed(consumer& c) {
  if (_selector) _selector->remove(c);
  std::erase_if(_draining, [&](const auto& item) { return item.second.owner == &c; });
  // Its entries go to the replay set (they block later entries of their hashes there).
  shared_dispatcher::consumer_removed(c);
  update_draining();
}

void key_shared_dispatcher::update_draining() {
  if (_allow_out_of_order || _selector == nullptr) return;
  // A hash moved back to the consumer that holds its entries drains no more.
  std::erase_if(_draining, [&](const auto& item) { return _selector->select(item.first) == item.second.owner; });
  for (const auto& c : _sub.consumers()) {
    for (const auto& [hash, entries] : c->unacked_hashes()) {
      if (_selector->select(hash) != c.get()) _draining.try_emplace(hash, drain{c.get(), entries});
    }
  }
}

void key_shared_dispatcher::release(consumer& owner, std::uint16_t key_hash, int entries) {
  auto it = _draining.find(key_hash);
  if (it == _draining.end() || it->second.owner != &owner) return;
  it->second.remaining -= entries;
  if (it->second.remaining <= 0) _draining.erase(it);
}

void key_shared_dispatcher::entry_acked(mledger::position p, consumer* owner, std::uint16_t key_hash) {
  shared_dispatcher::entry_acked(p, owner, key_hash);
  if (owner == nullptr) return;
  const auto before = _draining.size();
  release(*owner, key_hash, 1);
  if (_draining.size() != before) dispatch();
}

void key_shared_dispatcher::taken_back(consumer& c, const std::map<mledger::position, pending_entry>& entries) {
  for (const auto& [pos, what] : entries) release(c, what.key_hash, 1);
}

void key_shared_dispatcher::cursor_moved() {
  shared_dispatcher::cursor_moved();
  _draining.clear();
}

void key_shared_dispatcher::acked_upto(mledger::position /*p*/) {
  // The owners hold fewer entries of their draining hashes now: count again.
  std::unordered_map<const consumer*, std::unordered_map<std::uint16_t, int>> held_by;
  for (auto it = _draining.begin(); it != _draining.end();) {
    auto [owner, counted] = held_by.try_emplace(it->second.owner);
    if (counted) owner->second = it->second.owner->unacked_hashes();
    const auto& held = owner->second;
    auto count = held.find(it->first);
    it->second.remaining = count == held.end() ? 0 : count->second;
    it = it->second.remaining <= 0 ? _draining.erase(it) : std::next(it);
  }
  dispatch();
}

std::uint16_t key_shared_dispatcher::key_hash_of(const dispatch_fields& fields) const {
  return sticky_key_hash(fields);
}

consumer* key_shared_dispatcher::receiver_of(std::uint16_t key_hash) const {
  if (_selector == nullptr) return nullptr;
  consumer* c = _selector->select(key_hash);
  if (c == nullptr || !can_receive(*c)) return nullptr;
  if (!_allow_out_of_order) {
    auto d = _draining.find(key_hash);
    if (d != _draining.end() && d->second.owner != c) return nullptr;
  }
  return c;
}

consumer* key_shared_dispatcher::choose(std::uint16_t key_hash, bool replayed) {
  consumer* c = receiver_of(key_hash);
  if (!_allow_out_of_order) {
    // An earlier entry of the hash is still waiting: this one waits behind it.
    const bool behind = replayed ? _blocked_now.contains(key_hash) : hash_in_replay(key_hash);
    if (behind) c = nullptr;
  }
  if (c == nullptr && replayed) _blocked_now.insert(key_hash);
  return c;
}

std::vector<mledger::position> key_shared_dispatcher::pick_replay(std::size_t max) {
  std::vector<mledger::position> out;
  for (auto it = first_replay(); it != replay_end() && out.size() < max; it = next_replay(it)) {
    // Every entry of a hash gets the same answer here, so a hash's entries stay in order.
    if (receiver_of(it->second) != nullptr) out.push_back(it->first);
  }
  return out;
}

std::size_t key_shared_dispatcher::new_entries_allowed(std::size_t max) const {
  const auto limit = _sub.owner().config().key_shared_look_ahead_entries;
  return replay_size() >= limit ? 0 : std::min(max, limit - replay_size());
}

std::vector<std::pair<int, int>> key_shared_dispatcher::key_hash_ranges(const consumer& c) const {
  return _selector ? _selector->ranges_of(c) : std::vector<std::pair<int, int>>{};
}

}  // namespace magnetar::broker
