#include "broker/topic/topic.h"

#include "base/log.h"
#include "broker/api/client_channel.h"
#include "broker/api/errc.h"
#include "broker/api/protocol_error.h"
#include "broker/topic/backlog_quota.h"
#include "broker/topic/client_stats.h"
#include "broker/topic/consumer.h"
#include "broker/topic/cursor_moves.h"
#include "broker/topic/producer.h"
#include "broker/topic/topic_registry.h"
#include "io/run_on.h"
#include "mledger/errc.h"

#include <fmt/format.h>

#include <algorithm>
#include <charconv>

namespace magnetar::broker {

topic::topic(topic_registry& registry, wire::topic_name name, io::shard& shard,
             std::unique_ptr<mledger::managed_ledger> ledger)
    : _registry(registry),
      _name(std::move(name)),
      _full_name(_name.full()),
      _shard(shard),
      _ledger(std::move(ledger)),
      _gate(fmt::format("topic {}", _full_name)),
      _policies(resolve_policies(nullptr, registry.config())),
      _dedup(std::make_unique<deduplication>(*_ledger, registry.config(), _full_name)),
      _replication(registry.make_replication(_name, *_ledger, shard)) {
  _terminated.store(_ledger->is_terminated(), std::memory_order_release);
  const auto& properties = _ledger->properties();
  if (auto it = properties.find(std::string(topic_epoch_property)); it != properties.end()) {
    std::uint64_t epoch = 0;
    auto [end, ec] = std::from_chars(it->second.data(), it->second.data() + it->second.size(), epoch);
    if (ec == std::errc() && end == it->second.data() + it->second.size()) _epoch = epoch;
  }
}

topic::~topic() = default;

const broker_config& topic::config() const { return _registry.config(); }
base::clock& topic::clock() { return _registry.clock(); }

void topic::start() {
  auto pass = _gate.enter();
  if (!pass) return;
  _tick_timer = std::make_unique<io::timer>(_shard.executor(), clock());
  io::spawn(_shard.executor(),
            [self = shared_from_this(), held = std::make_shared<io::gate::pass>(std::move(pass).value())]() {
              return self->tick_loop(held);
            });
  auto policy_pass = _gate.enter();
  if (!policy_pass) return;
  _policy_timer = std::make_unique<io::timer>(_shard.executor(), clock());
  io::spawn(_shard.executor(),
            [self = shared_from_this(), held = std::make_shared<io::gate::pass>(std::move(policy_pass).value())]() {
              return self->policy_loop(held);
            });
}

awaitable<void> topic::tick_loop(std::shared_ptr<io::gate::pass> /*held*/) {
  while (!_closing) {
    const auto now = clock().now();
    _in.roll(now);
    for (const auto& p : _producers) p->meter().roll(now);
    for (const auto& [name, s] : _subscriptions) s->roll(now);
    for (auto& [cluster, meter] : _replicated_in) meter.roll(now);
    if (_replication) _replication->roll(now);
    _write_stats.tick(_ledger->write_stats());
    if (!co_await _tick_timer->wait_for(std::chrono::seconds(1))) break;
  }
}

// ---------------------------------------------------------------------------------------
// Producers

awaitable<result<std::shared_ptr<producer>>> topic::add_producer(std::shared_ptr<client_channel> conn,
                                                                 const proto::CommandProducer& request,
                                                                 std::string name) {
  if (_closing) co_return fail(errc::service_not_ready, fmt::format("topic {} is closing", _full_name));
  if (is_terminated()) co_return fail(errc::topic_terminated, "Topic was already terminated");
  const auto mode = request.producer_access_mode();
  // A producer of a connection that died keeps its name until its removal reaches the
  // topic; a client re-creating it after a reconnect must not be refused for that.
  auto gone = [](const auto& p) {
    if (!p->conn()->is_closed()) return false;
    p->mark_closed();
    return true;
  };
  // A name held on another connection may be held by a dead one (a client that lost its
  // connection without a FIN, as behind a NAT): that connection is asked for a sign of
  // life once, and closed without one, as upstream does.
  for (bool checked = false;;) {
    std::erase_if(_producers, gone);
    std::erase_if(_waiting_exclusive, gone);
    promote_waiting();
    std::shared_ptr<client_channel> holder;
    for (const auto* list : {&_producers, &_waiting_exclusive}) {
      for (const auto& p : *list) {
        if (p->name() == name) holder = p->conn();
      }
    }
    if (!holder) break;
    const auto timeout = config().connection_liveness_check_timeout;
    if (checked || holder == conn || timeout.count() == 0 || co_await holder->check_liveness(timeout)) {
      co_return fail(errc::producer_busy,
                     fmt::format("Producer with name '{}' is already connected to topic {}", name, _full_name));
    }
    checked = true;
    if (_closing) co_return fail(errc::service_not_ready, fmt::format("topic {} is closing", _full_name));
  }
  if (mode == proto::ExclusiveWithFencing) {
    for (const auto& p : _producers) {
      p->send_close();
      p->mark_closed();
    }
    _producers.clear();
    fail_waiting_producers(proto::ProducerFenced, "Fenced out");
  }
  MAGNETAR_CO_TRY(admit_producer(*this));
  if (_policies.max_producers > 0 &&
      _producers.size() + _waiting_exclusive.size() >= static_cast<std::size_t>(_policies.max_producers)) {
    co_return fail(errc::producer_busy, fmt::format("Topic '{}' reached max producers limit", _full_name));
  }
  const std::optional<std::uint64_t> asked_epoch =
      request.has_topic_epoch() ? std::optional(request.topic_epoch()) : std::nullopt;
  const bool waits = mode == proto::WaitForExclusive && (!_producers.empty() || !_waiting_exclusive.empty());
  if (!waits) {
    MAGNETAR_CO_TRY(check_access_mode(mode, asked_epoch));
  }
  auto p = std::make_shared<producer>(std::move(conn), shared_from_this(), producer_id{request.producer_id()},
                                      std::move(name), mode, request.epoch(), request.request_id(), /*ready=*/!waits,
                                      asked_epoch);
  p->set_metadata(key_values(request.metadata()));
  if (waits) {
    _waiting_exclusive.push_back(p);
    co_return p;
  }
  _producers.push_back(p);
  if (mode == proto::Shared) {
    if (_epoch) p->set_topic_epoch(*_epoch);
    co_return p;
  }
  auto taken = co_await take_epoch(*p);
  if (!taken) {
    remove_producer(*p);
    co_return fail(std::move(taken).error());
  }
  co_return p;
}

result<void> topic::check_access_mode(proto::ProducerAccessMode mode, std::optional<std::uint64_t> asked_epoch) const {
  const auto exclusive = std::find_if(_producers.begin(), _producers.end(),
                                      [](const auto& p) { return p->access_mode() != proto::Shared; });
  const bool exclusive_held = exclusive != _producers.end() || !_waiting_exclusive.empty();
  const std::string holder =
      exclusive != _producers.end() ? (*exclusive)->name() : (_waiting_exclusive.empty() ? "" : "(waiting)");
  if (mode == proto::Shared) {
    if (exclusive_held) {
      return fail(errc::producer_busy, fmt::format("Topic has an existing exclusive producer: {}", holder));
    }
    return success();
  }
  // The exclusive modes: fenced, not busy, so that the client stops retrying.
  if (exclusive_held) {
    return fail(errc::producer_fenced, fmt::format("Topic has an existing exclusive producer: {}", holder));
  }
  if (!_producers.empty()) return fail(errc::producer_fenced, "Topic has existing shared producers");
  return check_epoch(asked_epoch);
}

result<void> topic::check_epoch(std::optional<std::uint64_t> asked_epoch) const {
  if (asked_epoch && _epoch && *asked_epoch < *_epoch) {
    // A producer that held the topic before another exclusive one took it over.
    return fail(
        errc::producer_fenced,
        fmt::format("Topic epoch has already moved. Current epoch: {}, Producer epoch: {}", *_epoch, *asked_epoch));
  }
  return success();
}

awaitable<result<void>> topic::take_epoch(producer& p) {
  // A reconnecting exclusive producer keeps the epoch it had; a new one moves it on.
  const std::uint64_t epoch = p.asked_topic_epoch().value_or(_epoch ? *_epoch + 1 : 0);
  _epoch = epoch;
  p.set_topic_epoch(epoch);
  auto stored = co_await _ledger->set_property(std::string(topic_epoch_property), std::to_string(epoch));
  if (!stored) {
    co_return fail(errc::service_not_ready,
                   fmt::format("topic {}: persisting the topic epoch: {}", _full_name, stored.error().message()));
  }
  // A fencing producer may have taken the topic while the epoch was written.
  if (p.closed()) co_return fail(errc::producer_fenced, "Fenced out");
  co_return success();
}

void topic::promote_waiting() {
  if (_closing || is_terminated()) return;
  while (_producers.empty() && !_waiting_exclusive.empty()) {
    auto next = std::move(_waiting_exclusive.front());
    _waiting_exclusive.erase(_waiting_exclusive.begin());
    if (next->closed() || next->conn()->is_closed()) continue;
    if (auto allowed = check_epoch(next->asked_topic_epoch()); !allowed) {
      next->fail_waiting(server_error_of(allowed.error()), message_of(allowed.error()));
      continue;
    }
    _producers.push_back(next);
    // Ready once its epoch is stored: until then its SENDs are refused as not ready.
    auto pass = _gate.enter();
    if (!pass) return;
    io::spawn(_shard.executor(),
              [self = shared_from_this(), next,
               held = std::make_shared<io::gate::pass>(std::move(pass).value())]() -> awaitable<void> {
                auto taken = co_await self->take_epoch(*next);
                if (!taken) {
                  next->fail_waiting(server_error_of(taken.error()), message_of(taken.error()));
                  self->remove_producer(*next);
                  co_return;
                }
                next->make_ready(self->_dedup->last_sequence_id(next->name()));
              });
  }
}

void topic::remove_producer(const producer& p) {
  auto same = [&](const auto& x) {
    if (x.get() != &p) return false;
    x->mark_closed();
    return true;
  };
  std::erase_if(_producers, same);
  std::erase_if(_waiting_exclusive, same);
  promote_waiting();
}

void topic::disconnect_producers() {
  for (const auto& p : _producers) {
    p->send_close();
    p->mark_closed();
  }
  _producers.clear();
  fail_waiting_producers(proto::ServiceNotReady, fmt::format("topic {} closed its producers", _full_name));
}

void topic::fail_waiting_producers(proto::ServerError code, const std::string& message) {
  // Their PRODUCER requests are still pending: an ERROR ends them (a CLOSE_PRODUCER
  // would reach a client that has no producer yet).
  for (const auto& p : _waiting_exclusive) p->fail_waiting(code, message);
  _waiting_exclusive.clear();
}

void topic::publish(std::shared_ptr<producer> p, std::uint64_t sequence_id, std::uint64_t highest_sequence_id,
                    int messages, wire::shared_bytes entry, bool partial_chunk) {
  if (!p->ready()) {
    p->send_error(sequence_id, proto::NotAllowedError,
                  fmt::format("producer {} is waiting for exclusive access to {}", p->name(), _full_name));
    return;
  }
  if (p->closed() || _closing) {
    // Closed by a terminate: the entries it let in were answered before the close.
    if (is_terminated() && !_closing) {
      p->send_error(sequence_id, proto::TopicTerminatedError, "Topic was already terminated");
    } else {
      p->send_error(sequence_id, proto::ServiceNotReady, fmt::format("producer {} is closed", p->name()));
    }
    return;
  }
  auto pass = _gate.enter();
  if (!pass) {
    p->send_error(sequence_id, proto::ServiceNotReady, fmt::format("topic {} is closing", _full_name));
    return;
  }
  // A replicator's entries always; a local producer's when the policy says so (the
  // name is copied only then: this runs for every SEND).
  std::optional<dedup_ticket> ticket = replicated_ticket(*p, entry, messages);
  if (!ticket && _policies.deduplication_enabled) {
    ticket =
        dedup_ticket{p->name(), static_cast<std::int64_t>(sequence_id), static_cast<std::int64_t>(highest_sequence_id)};
  }
  if (!_dedup->enabled() || partial_chunk) ticket.reset();
  if (ticket) {
    const auto verdict = _dedup->check(ticket->name, ticket->sequence_id, ticket->highest);
    if (verdict == deduplication::verdict::duplicate) {
      // Stored already: the receipt names no entry (-1:-1), as upstream answers.
      p->send_receipt(sequence_id, highest_sequence_id, mledger::position::earliest());
      return;
    }
    if (verdict == deduplication::verdict::unknown) {
      // Its first copy is still being written: the client resends after this error and
      // then learns which it was.
      p->send_error(sequence_id, proto::PersistenceError,
                    "Cannot determine whether the message is a duplicate at this time");
      return;
    }
  }
  _in.record(static_cast<std::uint64_t>(messages), entry.size());
  p->meter().record(static_cast<std::uint64_t>(messages), entry.size());
  // A callback, not a coroutine: this runs for every entry (see start_add_entry).
  _ledger->start_add_entry(
      std::move(entry),
      [self = shared_from_this(), p = std::move(p), sequence_id, highest_sequence_id, ticket = std::move(ticket),
       held = std::make_shared<io::gate::pass>(std::move(pass).value())](result<mledger::position> added) {
        self->appended(p, sequence_id, highest_sequence_id, ticket, std::move(added));
      });
}

void topic::appended(const std::shared_ptr<producer>& p, std::uint64_t sequence_id, std::uint64_t highest_sequence_id,
                     const std::optional<dedup_ticket>& dedup, result<mledger::position> added) {
  if (added) {
    if (dedup) _dedup->persisted(dedup->name, dedup->highest, added.value());
    p->send_receipt(sequence_id, highest_sequence_id, added.value());
    return;
  }
  if (dedup) _dedup->publish_failed(dedup->name);
  if (added.error() == mledger::errc::terminated) {
    // Raced a terminate: answered after the receipts of the entries it let in.
    auto pass = _gate.enter();
    io::spawn(_shard.executor(),
              [self = shared_from_this(), p, sequence_id,
               held = pass ? std::make_shared<io::gate::pass>(std::move(pass).value()) : nullptr]() -> awaitable<void> {
                co_await self->wait_terminated();
                p->send_error(sequence_id, proto::TopicTerminatedError, "Topic was already terminated");
              });
    return;
  }
  spdlog::warn("{}: publish of {} from {} failed: {}", _full_name, sequence_id, p->name(), added.error());
  p->send_error(sequence_id, proto::PersistenceError, message_of(added.error()));
}

// ---------------------------------------------------------------------------------------
// Subscriptions

std::size_t topic::consumer_count() const {
  std::size_t n = 0;
  for (const auto& [name, s] : _subscriptions) n += s->consumers().size();
  return n;
}

std::shared_ptr<subscription> topic::find_subscription(const std::string& name) const {
  auto it = _subscriptions.find(name);
  return it == _subscriptions.end() ? nullptr : it->second;
}

std::vector<std::string> topic::subscription_names() const {
  std::vector<std::string> names;
  for (const auto& [name, s] : _subscriptions) names.push_back(name);
  return names;
}

awaitable<result<std::shared_ptr<subscription>>> topic::open_subscription(const proto::CommandSubscribe& request) {
  const auto& name = request.subscription();
  if (auto existing = find_subscription(name)) {
    if (existing->type() != request.subtype() && !existing->consumers().empty()) {
      co_return fail(errc::consumer_busy, fmt::format("Subscription {} is of type {}, not {}", name,
                                                      proto::CommandSubscribe::SubType_Name(existing->type()),
                                                      proto::CommandSubscribe::SubType_Name(request.subtype())));
    }
    if (existing->type() == request.subtype()) co_return existing;
    // Nobody is on it: it takes the newcomer's type, as upstream re-creates the dispatcher.
    co_await existing->close(false);
    _subscriptions.erase(name);
  }
  const bool durable = request.durable();
  if (durable && !config().allow_auto_subscription_creation && _ledger->find_cursor(name) == nullptr) {
    co_return fail(errc::subscription_not_found, "Subscription does not exist");
  }
  const auto start = request.initialposition() == proto::CommandSubscribe::Earliest
                         ? mledger::initial_position::earliest
                         : mledger::initial_position::latest;
  MAGNETAR_CO_TRY(cursor, co_await _ledger->open_cursor(
                              name, start, durable ? mledger::durability::durable : mledger::durability::non_durable));
  if (!durable && request.has_start_message_id()) {
    // A reader starts at the given entry: the client drops the messages before its
    // start (all of the entry when the start is exclusive), as upstream clients do.
    // The ids are unsigned on the wire: -1 (earliest) arrives as all ones.
    const auto& id = request.start_message_id();
    const auto l = static_cast<std::int64_t>(id.ledgerid());
    const auto e = static_cast<std::int64_t>(id.entryid());
    mledger::position from{ledger_id(l), entry_id(e)};
    if (l == std::numeric_limits<std::int64_t>::max()) {
      from = mledger::position::latest();
    } else if (l < 0 || e < 0) {
      from = mledger::position::earliest();
    }
    MAGNETAR_CO_TRY(co_await cursor->reset(from));
  }
  auto s = std::make_shared<subscription>(*this, name, cursor, request.subtype());
  _subscriptions.emplace(name, s);
  co_return s;
}

awaitable<result<std::shared_ptr<consumer>>> topic::subscribe(std::shared_ptr<client_channel> conn,
                                                              proto::CommandSubscribe request) {
  if (_closing) co_return fail(errc::service_not_ready, fmt::format("topic {} is closing", _full_name));
  // Upstream answers both with ProducerBusy, which its clients take as a configuration
  // error and do not retry.
  if (request.subscription().find_first_not_of(" \t\r\n") == std::string::npos) {
    co_return fail(errc::producer_busy, "Empty subscription name");
  }
  if (request.subscription() == dedup_cursor_name || request.subscription().starts_with(replicator_prefix)) {
    co_return fail(errc::producer_busy, "Subscription with reserved subscription name attempted");
  }
  if (_policies.max_consumers > 0 && consumer_count() >= static_cast<std::size_t>(_policies.max_consumers)) {
    co_return fail(errc::consumer_busy, fmt::format("Topic '{}' reached max consumers limit", _full_name));
  }
  MAGNETAR_CO_TRY(sub, co_await open_subscription(request));
  auto c = std::make_shared<consumer>(std::move(conn), shared_from_this(), consumer_id{request.consumer_id()},
                                      request.consumer_name(), request.priority_level());
  c->set_metadata(key_values(request.metadata()));
  MAGNETAR_CO_TRY(sub->add_consumer(c, request));
  co_return c;
}

void topic::flow(consumer& c, std::uint32_t permits) {
  if (auto* s = c.sub()) s->flow(c, permits);
}

result<void> topic::ack(consumer& c, const proto::CommandAck& ack) {
  auto* s = c.sub();
  if (s == nullptr) return fail(errc::consumer_busy, "consumer closed");
  return s->ack(c, ack);
}

void topic::redeliver(consumer& c, const std::vector<mledger::position>& which) {
  if (auto* s = c.sub()) s->redeliver(c, which);
}

void topic::remove_consumer(const consumer& c) {
  auto* s = c.sub();
  if (s == nullptr) return;
  s->remove_consumer(c);
  if (!s->is_durable() && s->consumers().empty() && !s->is_closing()) {
    // A reader's subscription goes with its last consumer.
    auto pass = _gate.enter();
    if (!pass) return;
    auto name = s->name();
    io::spawn(_shard.executor(),
              [self = shared_from_this(), name,
               held = std::make_shared<io::gate::pass>(std::move(pass).value())]() -> awaitable<void> {
                auto sub = self->find_subscription(name);
                if (!sub || !sub->consumers().empty()) co_return;
                self->_subscriptions.erase(name);
                co_await sub->close(false);
                auto removed = co_await self->_ledger->delete_cursor(name);
                if (!removed)
                  spdlog::warn("{}: dropping reader cursor {} failed: {}", self->_full_name, name, removed.error());
              });
  }
}

awaitable<result<void>> topic::unsubscribe(const consumer& c, bool force) {
  auto* s = c.sub();
  if (s == nullptr) co_return fail(errc::subscription_not_found, "the consumer has no subscription");
  if (s->consumers().size() > 1 && !force) {
    co_return fail(errc::precondition_failed, fmt::format("Subscription {} has other connected consumers", s->name()));
  }
  // The one unsubscribing is answered by the handler, not told to go away; any others
  // (force) get CLOSE_CONSUMER.
  const auto name = s->name();
  s->remove_consumer(c);
  co_return co_await delete_subscription(name, true);
}

awaitable<result<void>> topic::create_subscription(std::string name, message_position start) {
  if (find_subscription(name) || _ledger->find_cursor(name) != nullptr) {
    co_return fail(errc::conflict, fmt::format("Subscription {} already exists", name));
  }
  const bool earliest = start.ledger_id < 0;
  MAGNETAR_CO_TRY(cursor, co_await _ledger->open_cursor(name, earliest ? mledger::initial_position::earliest
                                                                       : mledger::initial_position::latest));
  const bool latest = start.ledger_id == message_position::latest().ledger_id;
  if (!earliest && !latest) {
    MAGNETAR_CO_TRY(co_await cursor->reset({ledger_id(start.ledger_id), entry_id(start.entry_id)}));
  }
  _subscriptions.emplace(name, std::make_shared<subscription>(*this, name, cursor, proto::CommandSubscribe::Exclusive));
  co_return success();
}

awaitable<result<void>> topic::delete_subscription(std::string name, bool force) {
  auto s = find_subscription(name);
  if (!s && _ledger->find_cursor(name) == nullptr) {
    co_return fail(errc::subscription_not_found, fmt::format("Subscription {} not found", name));
  }
  if (s) {
    if (!s->consumers().empty() && !force) {
      co_return fail(errc::precondition_failed, fmt::format("Subscription {} has active consumers", name));
    }
    _subscriptions.erase(name);
    co_await s->close(true);
  }
  co_return co_await _ledger->delete_cursor(name);
}

// ---------------------------------------------------------------------------------------
// Lifecycle

awaitable<void> topic::close_clients(bool notify) {
  for (const auto& p : _producers) {
    if (notify) p->send_close();
    p->mark_closed();
  }
  _producers.clear();
  fail_waiting_producers(proto::ServiceNotReady, fmt::format("topic {} is closing", _full_name));
  auto subs = _subscriptions;
  for (const auto& [name, s] : subs) co_await s->close(notify);
}

awaitable<result<void>> topic::close() {
  if (_closing) co_return success();
  _closing = true;
  if (_replication) co_await _replication->close();
  co_await close_clients(true);
  if (_tick_timer) _tick_timer->cancel();
  if (_policy_timer) _policy_timer->cancel();
  // The managed ledger's close persists the cursors, this snapshot with them: the next
  // load replays nothing that this one already knew.
  _dedup->snapshot();
  auto closed = co_await _ledger->close();
  co_await _gate.close();
  co_return closed;
}

awaitable<result<void>> topic::remove(bool force) {
  if (has_clients() && !force) {
    co_return fail(errc::precondition_failed,
                   fmt::format("Topic {} has active producers or subscriptions", _full_name));
  }
  if (_closing) co_return fail(errc::service_not_ready, fmt::format("topic {} is closing", _full_name));
  _closing = true;
  if (_replication) co_await _replication->close();
  co_await close_clients(true);
  _subscriptions.clear();
  if (_tick_timer) _tick_timer->cancel();
  if (_policy_timer) _policy_timer->cancel();
  auto removed = co_await _ledger->remove();
  co_await _gate.close();
  co_return removed;
}

}  // namespace magnetar::broker
