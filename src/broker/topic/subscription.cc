#include "broker/topic/subscription.h"

#include "base/log.h"
#include "broker/api/client_channel.h"
#include "broker/api/errc.h"
#include "broker/topic/client_stats.h"
#include "broker/topic/consumer.h"
#include "broker/topic/topic.h"
#include "broker/topic/topic_registry.h"

#include <fmt/format.h>

#include <algorithm>

namespace magnetar::broker {

namespace {

std::string type_name(subscription_type type) { return proto::CommandSubscribe::SubType_Name(type); }

mledger::position position_of(const proto::MessageIdData& id) {
  return {ledger_id(static_cast<std::int64_t>(id.ledgerid())), entry_id(static_cast<std::int64_t>(id.entryid()))};
}

// A batch-index ack (ack_set) that leaves messages of the entry unacknowledged: the
// entry stays. Every bit clear (or no ack_set) acknowledges the whole entry.
bool acks_whole_entry(const proto::MessageIdData& id) {
  return std::all_of(id.ack_set().begin(), id.ack_set().end(), [](std::int64_t word) { return word == 0; });
}

bool shares_entries(subscription_type type) {
  return type == proto::CommandSubscribe::Shared || type == proto::CommandSubscribe::Key_Shared;
}

const std::vector<std::int64_t> no_ack_set;

}  // namespace

subscription::subscription(topic& owner, std::string name, mledger::managed_cursor* cursor, subscription_type type)
    : _topic(owner), _name(std::move(name)), _cursor(cursor), _type(type), _dispatcher(make_dispatcher(*this, type)) {}

subscription::~subscription() = default;

result<void> subscription::add_consumer(std::shared_ptr<consumer> c, const proto::CommandSubscribe& request) {
  if (_closing) return fail(errc::service_not_ready, fmt::format("subscription {} is closing", _name));
  if (c->sub() != nullptr) return fail(errc::consumer_busy, "the consumer is attached already");
  if (!_consumers.empty() && _type == proto::CommandSubscribe::Exclusive) {
    return fail(errc::consumer_busy, fmt::format("Exclusive consumer is already connected to subscription {}", _name));
  }
  c->attach(this);
  _consumers.push_back(c);
  auto added = _dispatcher->consumer_added(*c, request);
  if (!added) {
    _consumers.pop_back();
    c->attach(nullptr);
    return added;
  }
  return success();
}

void subscription::remove_consumer(const consumer& c) {
  auto it = std::find_if(_consumers.begin(), _consumers.end(), [&](const auto& x) { return x.get() == &c; });
  if (it == _consumers.end()) return;
  auto gone = *it;
  _consumers.erase(it);
  gone->mark_closed();
  // The consumer may outlive this subscription (its connection still holds it): it
  // must not keep a pointer here.
  gone->attach(nullptr);
  _dispatcher->consumer_removed(*gone);
}

void subscription::flow(consumer& c, std::uint32_t permits) {
  c.add_permits(permits);
  _dispatcher->dispatch();
  // A consumer that subscribed to a drained terminated topic learns it on its first FLOW
  // (after its subscribe was answered, as upstream's dispatcher finds no more entries).
  tell_end_of_topic_if_drained();
}

result<void> subscription::ack(consumer& c, const proto::CommandAck& ack) {
  auto done = apply_ack(c, ack);
  if (done) tell_end_of_topic_if_drained();
  return done;
}

void subscription::tell_end_of_topic_if_drained() {
  // The managed ledger's word, not the topic's: while a terminate is under way, adds it
  // let in may still land.
  if (_closing || !_topic.ledger().is_terminated() || _cursor->backlog() > 0) return;
  for (const auto& c : _consumers) c->reached_end_of_topic();
  // A sealed segment drained for this subscription may release its children at once,
  // rather than at the controller's next backlog check.
  if (_topic.name().is_segment()) _topic.registry().segment_drained(_topic.name(), _name);
}

result<void> subscription::apply_ack(consumer& c, const proto::CommandAck& ack) {
  if (ack.ack_type() == proto::CommandAck::Cumulative) {
    if (shares_entries(_type)) {
      return fail(errc::not_allowed,
                  fmt::format("cumulative acks are not allowed on {} subscription {}", type_name(_type), _name));
    }
    if (ack.message_id_size() != 1) {
      return fail(errc::invalid_request, "a cumulative ack carries exactly one message id");
    }
    const auto& id = ack.message_id(0);
    auto p = position_of(id);
    // A cumulative ack inside a batch covers the entries before it, and the batch's
    // messages up to its index, which a redelivery of the batch then leaves out.
    if (!acks_whole_entry(id) && !ack_batch_indexes(p, id)) p = {p.ledger(), entry_id(p.entry().value() - 1)};
    if (p <= _cursor->mark_delete_position()) return success();
    MAGNETAR_TRY(_cursor->mark_delete(p));
    for (const auto& other : _consumers) other->acked_upto(p);
    forget_upto(p);
    return success();
  }
  for (const auto& id : ack.message_id()) {
    MAGNETAR_TRY(ack_individual(c, id));
  }
  return success();
}

result<void> subscription::ack_individual(consumer& c, const proto::MessageIdData& id) {
  const auto p = position_of(id);
  if (!acks_whole_entry(id) && !ack_batch_indexes(p, id)) return success();
  if (is_acked(p)) return success();
  MAGNETAR_TRY(_cursor->delete_entry(p));
  _redelivery_counts.erase(p);
  const bool was_blocked = shares_entries(_type) && over_unacked_limit();
  // Usually the acking consumer holds it; after a reconnect another may.
  consumer* owner = &c;
  auto what = c.acked(p);
  for (auto it = _consumers.begin(); !what && it != _consumers.end(); ++it) {
    owner = it->get();
    what = owner->acked(p);
  }
  _dispatcher->entry_acked(p, what ? owner : nullptr, what ? what->key_hash : 0);
  // An ack that takes a consumer, or the subscription, back under its unacked limit
  // lets dispatch go on.
  const auto limit = _topic.config().max_unacked_messages_per_consumer;
  const bool owner_unblocked = what && shares_entries(_type) && limit > 0 && owner->unacked_messages() < limit &&
                               owner->unacked_messages() + static_cast<std::uint64_t>(what->messages) >= limit;
  if (owner_unblocked || (was_blocked && !over_unacked_limit())) _dispatcher->dispatch();
  return success();
}

bool subscription::ack_batch_indexes(mledger::position p, const proto::MessageIdData& id) {
  std::vector<std::int64_t> unacked(id.ack_set().begin(), id.ack_set().end());
  if (const auto* known = _cursor->batch_ack_set(p)) {
    // Both sets mark what is still unacknowledged: what is left is what both mark.
    std::vector<std::int64_t> both(known->size(), 0);
    for (std::size_t i = 0; i < both.size() && i < unacked.size(); ++i) both[i] = (*known)[i] & unacked[i];
    unacked = std::move(both);
  }
  const bool whole = std::all_of(unacked.begin(), unacked.end(), [](std::int64_t word) { return word == 0; });
  if (!whole) _cursor->set_batch_ack_set(p, std::move(unacked));
  return whole;
}

bool subscription::is_acked(mledger::position p) const {
  return p <= _cursor->mark_delete_position() || _cursor->individually_deleted().contains(p);
}

void subscription::forget_upto(mledger::position p) {
  std::erase_if(_redelivery_counts, [&](const auto& item) { return item.first <= p; });
}

void subscription::redeliver(consumer& c, const std::vector<mledger::position>& which) {
  _dispatcher->redeliver(c, which);
}

void subscription::send(consumer& c, const mledger::entry& e, pending_entry what) {
  auto counted = _redelivery_counts.find(e.pos);
  const std::uint32_t redeliveries = counted == _redelivery_counts.end() ? 0 : counted->second;
  const auto* partial = _cursor->batch_ack_set(e.pos);
  c.send_entry(e, what, redeliveries, partial == nullptr ? no_ack_set : *partial);
  _out.record(static_cast<std::uint64_t>(what.messages), e.data.size());
  if (redeliveries > 0) _redelivered.record(static_cast<std::uint64_t>(what.messages), e.data.size());
}

bool subscription::over_unacked_limit(const consumer& c) const {
  const auto limit = _topic.config().max_unacked_messages_per_consumer;
  return limit > 0 && c.unacked_messages() >= limit;
}

bool subscription::over_unacked_limit() const {
  const auto limit = _topic.config().max_unacked_messages_per_subscription;
  if (limit == 0) return false;
  std::uint64_t unacked = 0;
  for (const auto& c : _consumers) unacked += c->unacked_messages();
  return unacked >= limit;
}

awaitable<result<void>> subscription::reset(mledger::position to) {
  MAGNETAR_CO_TRY(co_await _cursor->reset(to));
  _redelivery_counts.clear();
  _dispatcher->cursor_moved();
  // Clients drop what they had queued and subscribe again, from the new position.
  auto gone = _consumers;
  for (const auto& c : gone) {
    c->send_close();
    remove_consumer(*c);
  }
  co_return success();
}

awaitable<result<void>> subscription::skip(std::uint64_t count) {
  auto& ml = _topic.ledger();
  auto p = ml.normalize(_cursor->mark_delete_position().next_in_ledger());
  const auto last = ml.last_confirmed();
  for (std::uint64_t i = 0; i < count && p <= last; ++i) {
    if (!_cursor->individually_deleted().contains(p)) {
      MAGNETAR_CO_TRY(_cursor->delete_entry(p));
    } else {
      ++count;  // already acknowledged: doesn't count
    }
    p = ml.next_valid_position(p);
  }
  tell_end_of_topic_if_drained();
  co_return success();
}

awaitable<result<void>> subscription::clear_backlog() {
  auto last = _topic.ledger().last_confirmed();
  if (last.entry().value() < 0 || last <= _cursor->mark_delete_position()) co_return success();
  MAGNETAR_CO_TRY(_cursor->mark_delete(last));
  for (const auto& c : _consumers) c->acked_upto(last);
  forget_upto(last);
  _dispatcher->cursor_moved();
  tell_end_of_topic_if_drained();
  co_return success();
}

result<void> subscription::expire_upto(mledger::position p) {
  if (p <= _cursor->mark_delete_position()) return success();
  MAGNETAR_TRY(_cursor->mark_delete(p));
  for (const auto& c : _consumers) c->acked_upto(p);
  forget_upto(p);
  // Entries due again after `p` stay due; the dispatcher drops the acknowledged ones.
  _dispatcher->acked_upto(p);
  tell_end_of_topic_if_drained();
  return success();
}

awaitable<void> subscription::close(bool notify) {
  // Once: a reader's subscription leaving with its last consumer and the topic closing
  // may both close it (the topic copied its subscriptions before the reader's went).
  if (_closing) co_return;
  _closing = true;
  for (const auto& c : _consumers) {
    if (notify) c->send_close();
    c->mark_closed();
    c->attach(nullptr);
  }
  _consumers.clear();
  co_await _dispatcher->close();
}

subscription_stats subscription::stats() const {
  subscription_stats out;
  out.type = type_name(_type);
  out.is_durable = _cursor->is_durable();
  out.msg_backlog = _cursor->backlog();
  out.msg_rate_out = _out.message_rate();
  out.msg_throughput_out = _out.byte_rate();
  out.msg_rate_redeliver = _redelivered.message_rate();
  out.msg_out_counter = _out.messages();
  out.bytes_out_counter = _out.bytes();
  out.msg_delayed = _dispatcher->delayed_entries();
  out.msg_in_replay = _dispatcher->replay_entries();
  out.draining_hashes_count = _dispatcher->draining_hash_count();
  if (const auto* active = _dispatcher->active_consumer()) out.active_consumer_name = active->name();
  for (const auto& c : _consumers) {
    auto cs = consumer_stats_of(*c);
    cs.blocked_consumer_on_unacked_msgs = shares_entries(_type) && over_unacked_limit(*c);
    cs.key_hash_ranges = _dispatcher->key_hash_ranges(*c);
    out.unacked_messages += cs.unacked_messages;
    out.consumers.push_back(std::move(cs));
  }
  return out;
}

void subscription::roll(base::clock::time_point now) {
  _out.roll(now);
  _redelivered.roll(now);
  for (const auto& c : _consumers) {
    c->meter().roll(now);
    c->redeliveries().roll(now);
  }
}
}  // namespace magnetar::broker
