#include "broker/subscription.h"

#include "base/log.h"
#include "broker/connection.h"
#include "broker/consumer.h"
#include "broker/entry_format.h"
#include "broker/errc.h"
#include "broker/topic.h"
#include "io/run_on.h"

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

}  // namespace

subscription::subscription(topic& owner, std::string name, mledger::managed_cursor* cursor, subscription_type type)
    : _topic(owner), _name(std::move(name)), _cursor(cursor), _type(type) {}

result<void> subscription::add_consumer(std::shared_ptr<consumer> c) {
  if (_closing) return fail(errc::service_not_ready, fmt::format("subscription {} is closing", _name));
  if (c->sub() != nullptr) return fail(errc::consumer_busy, "the consumer is attached already");
  if (!_consumers.empty() && _type == proto::CommandSubscribe::Exclusive) {
    return fail(errc::consumer_busy, fmt::format("Exclusive consumer is already connected to subscription {}", _name));
  }
  c->attach(this);
  _consumers.push_back(std::move(c));
  choose_active();
  dispatch();
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
  if (!gone->unacked().empty()) {
    for (auto& [pos, count] : gone->take_unacked()) ++_redelivery_counts[pos];
    _cursor->rewind();
  }
  choose_active();
  dispatch();
}

void subscription::choose_active() {
  consumer* previous = _active;
  if (_consumers.empty()) {
    _active = nullptr;
    return;
  }
  auto order = _consumers;
  std::stable_sort(order.begin(), order.end(), [](const auto& a, const auto& b) {
    if (a->priority_level() != b->priority_level()) return a->priority_level() < b->priority_level();
    return a->name() < b->name();
  });
  const int top = order.front()->priority_level();
  const auto top_count = static_cast<std::size_t>(
      std::count_if(order.begin(), order.end(), [&](const auto& c) { return c->priority_level() == top; }));
  const int partition = _topic.name().partition();
  const std::size_t index = partition < 0 ? 0 : static_cast<std::size_t>(partition) % top_count;
  _active = order[index].get();
  if (_type != proto::CommandSubscribe::Failover) return;
  if (_active != previous) {
    for (const auto& c : _consumers) c->send_active_change(c.get() == _active);
    // What the previous active consumer had not acknowledged goes to the new one.
    if (previous != nullptr) {
      for (const auto& c : _consumers) {
        if (c.get() == _active) continue;
        for (auto& [pos, count] : c->take_unacked()) ++_redelivery_counts[pos];
      }
      _cursor->rewind();
    }
  } else if (previous != nullptr) {
    // A newcomer that is not active still learns that it is not.
    _consumers.back()->send_active_change(_consumers.back().get() == _active);
  }
}

void subscription::flow(consumer& c, std::uint32_t permits) {
  c.add_permits(permits);
  if (&c == _active) dispatch();
}

result<void> subscription::ack(consumer& c, const proto::CommandAck& ack) {
  if (ack.ack_type() == proto::CommandAck::Cumulative) {
    if (ack.message_id_size() != 1) {
      return fail(errc::invalid_request, "a cumulative ack carries exactly one message id");
    }
    auto p = position_of(ack.message_id(0));
    // A cumulative ack inside a partly acknowledged batch covers the entries before it.
    if (!acks_whole_entry(ack.message_id(0))) p = {p.ledger(), entry_id(p.entry().value() - 1)};
    if (p <= _cursor->mark_delete_position()) return success();
    MAGNETAR_TRY(_cursor->mark_delete(p));
    for (const auto& other : _consumers) other->acked_upto(p);
    forget_redelivery_counts_upto(p);
    return success();
  }
  for (const auto& id : ack.message_id()) {
    if (!acks_whole_entry(id)) continue;
    const auto p = position_of(id);
    MAGNETAR_TRY(_cursor->delete_entry(p));
    c.acked(p);
    _redelivery_counts.erase(p);
  }
  return success();
}

void subscription::forget_redelivery_counts_upto(mledger::position p) {
  std::erase_if(_redelivery_counts, [&](const auto& item) { return item.first <= p; });
}

void subscription::redeliver_unacknowledged(consumer& c) {
  for (auto& [pos, count] : c.take_unacked()) ++_redelivery_counts[pos];
  _cursor->rewind();
  dispatch();
}

void subscription::dispatch() {
  if (_closing || _reading || _active == nullptr || _active->permits() <= 0) return;
  if (!_cursor->has_more_entries()) {
    if (_waiting) return;
    auto pass = _topic.enter();
    if (!pass) return;
    _waiting = true;
    io::spawn(_topic.shard().executor(),
              [self = shared_from_this(), held = std::make_shared<io::gate::pass>(std::move(pass).value())]() {
                return self->wait_for_entries(held);
              });
    return;
  }
  auto pass = _reads.enter();
  if (!pass) return;
  _reading = true;
  // Sized now: the active consumer may be gone by the time the read starts.
  const auto max_entries = std::min<std::size_t>(_topic.config().dispatcher_max_read_batch_size,
                                                 static_cast<std::size_t>(_active->permits()));
  io::spawn(_topic.shard().executor(), [self = shared_from_this(), max_entries,
                                        held = std::make_shared<io::gate::pass>(std::move(pass).value())]() {
    return self->read_and_send(max_entries, held);
  });
}

awaitable<void> subscription::wait_for_entries(std::shared_ptr<io::gate::pass> /*held*/) {
  // The managed ledger, not the cursor, is awaited: an unsubscribe may delete the cursor
  // meanwhile (hence _closing is checked before the cursor is touched). The check runs
  // here, not where the wait was spawned: entries added in between must not be missed.
  auto& ml = _topic.ledger();
  while (!_closing && !_cursor->has_more_entries()) {
    auto woke = co_await ml.wait_for_entries_after(ml.last_confirmed());
    if (!woke) {
      _waiting = false;
      co_return;
    }
  }
  _waiting = false;
  if (!_closing) dispatch();
}

awaitable<void> subscription::read_and_send(std::size_t max_entries, std::shared_ptr<io::gate::pass> /*held*/) {
  if (_closing || _active == nullptr) {
    _reading = false;
    co_return;
  }
  auto entries = co_await _cursor->read_entries(max_entries, _topic.config().dispatcher_max_read_size_bytes);
  _reading = false;
  if (!entries) {
    spdlog::warn("{} subscription {}: read failed: {}", _topic.full_name(), _name, entries.error());
    if (!_closing) _cursor->rewind();
    co_return;
  }
  if (_closing) co_return;
  if (_active == nullptr) {
    // The consumer went while the read ran: read these again for the next one.
    _cursor->rewind();
    co_return;
  }
  for (const auto& e : entries.value()) {
    auto metadata = entry_metadata(e.data);
    const int messages = metadata ? messages_in(metadata.value()) : 1;
    auto counted = _redelivery_counts.find(e.pos);
    const std::uint32_t redeliveries = counted == _redelivery_counts.end() ? 0 : counted->second;
    _active->send_entry(e, messages, redeliveries);
    _out.record(static_cast<std::uint64_t>(messages), e.data.size());
    if (redeliveries > 0) _redelivered.record(static_cast<std::uint64_t>(messages), e.data.size());
  }
  dispatch();
}

awaitable<result<void>> subscription::reset(mledger::position to) {
  MAGNETAR_CO_TRY(co_await _cursor->reset(to));
  _redelivery_counts.clear();
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
  co_return success();
}

awaitable<result<void>> subscription::clear_backlog() {
  auto last = _topic.ledger().last_confirmed();
  if (last.entry().value() < 0 || last <= _cursor->mark_delete_position()) co_return success();
  MAGNETAR_CO_TRY(_cursor->mark_delete(last));
  for (const auto& c : _consumers) c->acked_upto(last);
  _redelivery_counts.clear();
  co_return success();
}

awaitable<void> subscription::close(bool notify) {
  _closing = true;
  for (const auto& c : _consumers) {
    if (notify) c->send_close();
    c->mark_closed();
    c->attach(nullptr);
  }
  _consumers.clear();
  _active = nullptr;
  co_await _reads.close();
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
  if (_active != nullptr && _type == proto::CommandSubscribe::Failover) out.active_consumer_name = _active->name();
  if (_active != nullptr && _type == proto::CommandSubscribe::Exclusive) out.active_consumer_name = _active->name();
  for (const auto& c : _consumers) {
    consumer_stats cs;
    cs.consumer_name = c->name();
    cs.address = c->conn()->remote_address();
    cs.connected_since = c->conn()->connected_since();
    cs.msg_rate_out = c->meter().message_rate();
    cs.msg_throughput_out = c->meter().byte_rate();
    cs.msg_rate_redeliver = c->redeliveries().message_rate();
    cs.msg_out_counter = c->meter().messages();
    cs.bytes_out_counter = c->meter().bytes();
    cs.available_permits = c->permits();
    cs.unacked_messages = c->unacked_messages();
    cs.priority_level = c->priority_level();
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

result<void> subscription::expire_upto(mledger::position p) {
  if (p <= _cursor->mark_delete_position()) return success();
  MAGNETAR_TRY(_cursor->mark_delete(p));
  for (const auto& c : _consumers) c->acked_upto(p);
  forget_redelivery_counts_upto(p);
  return success();
}

}  // namespace magnetar::broker
