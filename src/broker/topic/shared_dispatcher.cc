#include "broker/topic/shared_dispatcher.h"

#include "broker/topic/consumer.h"
#include "broker/topic/dispatch_fields.h"
#include "broker/topic/subscription.h"
#include "broker/topic/topic.h"
#include "io/run_on.h"

#include <algorithm>
#include <limits>

namespace magnetar::broker {

shared_dispatcher::shared_dispatcher(subscription& sub)
    : dispatcher(sub), _delayed(sub.owner().config().delayed_delivery_tick) {}

shared_dispatcher::~shared_dispatcher() = default;

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
  // What is ahead of the cursor is read, and held, again from its new position.
  _delayed.clear();
  if (_delay_timer) _delay_timer->cancel();
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

bool shared_dispatcher::can_receive(const consumer& c) const { return c.permits() > 0 && !_sub.over_unacked_limit(c); }

dispatcher::read_plan shared_dispatcher::plan_read() {
  read_plan plan;
  if (_sub.over_unacked_limit()) return plan;
  std::int64_t permits = 0;
  for (const auto& c : _sub.consumers()) {
    if (can_receive(*c)) permits += c->permits();
  }
  if (permits <= 0) return plan;
  const auto max =
      std::min<std::size_t>(_sub.owner().config().dispatcher_max_read_batch_size, static_cast<std::size_t>(permits));
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
    auto fields = dispatch_fields_of(e.data);
    const int messages = fields ? fields.value().messages : 1;
    const std::uint16_t hash = fields ? key_hash_of(fields.value()) : 0;
    if (fields && hold_delayed(e.pos, fields.value(), hash)) continue;
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

bool shared_dispatcher::hold_delayed(mledger::position p, const dispatch_fields& fields, std::uint16_t key_hash) {
  if (!fields.deliver_at_time || !_sub.owner().config().delayed_delivery_enabled) return false;
  // Read again (a cursor read after a failure) while held: it stays held.
  if (_delayed.contains(p)) return true;
  if (!_delayed.add(p, key_hash, *fields.deliver_at_time, wall_now_ms())) return false;
  remove_replay(p);
  arm_delay_timer();
  return true;
}

void shared_dispatcher::arm_delay_timer() {
  const auto wakeup = _delayed.next_wakeup_ms();
  if (!wakeup) return;
  if (_delay_waiting) {
    // An entry due before the one awaited: the wait starts over and picks it.
    if (*wakeup < _delay_wakeup_ms) _delay_timer->cancel();
    return;
  }
  if (_sub.is_closing()) return;
  auto pass = enter_gate();
  if (!pass) return;
  auto& owner = _sub.owner();
  if (!_delay_timer) _delay_timer = std::make_unique<io::timer>(owner.shard().executor(), owner.clock());
  _delay_waiting = true;
  // The subscription owns this dispatcher: holding it keeps `this` alive.
  io::spawn(owner.shard().executor(),
            [self = _sub.shared_from_this(), this, held = std::make_shared<io::gate::pass>(std::move(pass).value())]() {
              return wait_for_delayed(held);
            });
}

awaitable<void> shared_dispatcher::wait_for_delayed(std::shared_ptr<io::gate::pass> /*held*/) {
  while (!_sub.is_closing()) {
    const auto wakeup = _delayed.next_wakeup_ms();
    if (!wakeup) break;
    _delay_wakeup_ms = *wakeup;
    const auto wait = std::chrono::milliseconds(std::max<std::int64_t>(0, *wakeup - wall_now_ms()));
    const bool reached = co_await _delay_timer->wait_for(wait);
    // Cancelled: the subscription closes, the cursor moved, or an earlier entry came.
    if (!reached || _sub.is_closing()) continue;
    release_due();
  }
  _delay_waiting = false;
}

void shared_dispatcher::release_due() {
  // Nothing may be due yet when the wall clock lags the timer's monotonic one; the
  // tick noted here then spaces the next look.
  const auto due = _delayed.take_due(wall_now_ms());
  if (due.empty()) return;
  for (const auto& d : due) add_replay(d.pos, d.key_hash);
  dispatch();
}

void shared_dispatcher::closing() {
  if (_delay_timer) _delay_timer->cancel();
}

std::int64_t shared_dispatcher::wall_now_ms() const {
  const auto now = _sub.owner().clock().wall_now().time_since_epoch();
  return std::chrono::duration_cast<std::chrono::milliseconds>(now).count();
}

}  // namespace magnetar::broker
