#include "broker/topic/non_persistent_topic.h"

#include "broker/api/client_channel.h"
#include "broker/api/errc.h"
#include "broker/topic/client_stats.h"
#include "broker/topic/consumer.h"
#include "broker/topic/dispatch_fields.h"
#include "broker/topic/producer.h"
#include "broker/topic/sticky_key.h"

#include <fmt/format.h>

#include <algorithm>

namespace magnetar::broker {

namespace {

std::string type_name(proto::CommandSubscribe::SubType type) { return proto::CommandSubscribe::SubType_Name(type); }

// Failover's order: priority level, then name (upstream's), the first one receives.
bool failover_before(const std::shared_ptr<consumer>& a, const std::shared_ptr<consumer>& b) {
  if (a->priority_level() != b->priority_level()) return a->priority_level() < b->priority_level();
  return a->name() < b->name();
}

}  // namespace

non_persistent_topic::non_persistent_topic(wire::topic_name name, io::shard& shard, const broker_config& config,
                                           base::clock& clock)
    : _name(std::move(name)), _shard(shard), _config(config), _clock(clock) {}

proto::MessageIdData non_persistent_topic::message_id(mledger::position at) const {
  proto::MessageIdData id;
  id.set_ledgerid(static_cast<std::uint64_t>(at.ledger().value()));
  id.set_entryid(static_cast<std::uint64_t>(at.entry().value()));
  if (_name.partition() >= 0) id.set_partition(_name.partition());
  return id;
}

// ---------------------------------------------------------------------------------------
// Producers

result<std::shared_ptr<producer>> non_persistent_topic::add_producer(std::shared_ptr<client_channel> conn,
                                                                     const proto::CommandProducer& request,
                                                                     std::string name) {
  std::erase_if(_producers, [](const auto& p) {
    if (!p->conn()->is_closed()) return false;
    p->mark_closed();
    return true;
  });
  for (const auto& p : _producers) {
    if (p->name() == name) {
      return fail(errc::producer_busy,
                  fmt::format("Producer with name '{}' is already connected to topic {}", name, _name.full()));
    }
  }
  const auto mode = request.producer_access_mode();
  const auto exclusive = std::find_if(_producers.begin(), _producers.end(),
                                      [](const auto& p) { return p->access_mode() != proto::Shared; });
  if (mode == proto::ExclusiveWithFencing) {
    for (const auto& p : _producers) {
      p->send_close();
      p->mark_closed();
    }
    _producers.clear();
  } else if (exclusive != _producers.end()) {
    const auto code = mode == proto::Shared ? errc::producer_busy : errc::producer_fenced;
    return fail(code, fmt::format("Topic has an existing exclusive producer: {}", (*exclusive)->name()));
  } else if (mode != proto::Shared && !_producers.empty()) {
    return fail(errc::producer_fenced, "Topic has existing shared producers");
  }
  if (_config.max_producers_per_topic > 0 &&
      _producers.size() >= static_cast<std::size_t>(_config.max_producers_per_topic)) {
    return fail(errc::producer_busy, fmt::format("Topic '{}' reached max producers limit", _name.full()));
  }
  auto p = std::make_shared<producer>(std::move(conn), shared_from_this(), producer_id{request.producer_id()},
                                      std::move(name), mode, request.epoch(), request.request_id(), /*ready=*/true);
  p->set_metadata(key_values(request.metadata()));
  if (mode != proto::Shared) _epoch = _epoch ? *_epoch + 1 : 0;
  if (_epoch) p->set_topic_epoch(*_epoch);
  _producers.push_back(p);
  return p;
}

void non_persistent_topic::publish(std::shared_ptr<producer> p, std::uint64_t sequence_id,
                                   std::uint64_t highest_sequence_id, int messages, wire::shared_bytes entry,
                                   bool /*partial_chunk*/) {
  if (p->closed()) {
    p->send_error(sequence_id, proto::NotAllowedError, "the producer is closed");
    return;
  }
  _in.record(static_cast<std::uint64_t>(messages), entry.size());
  p->meter().record(static_cast<std::uint64_t>(messages), entry.size());
  p->send_receipt(sequence_id, highest_sequence_id, {ledger_id(0), entry_id(0)});
  std::optional<std::uint16_t> key_hash;
  for (auto& [name, s] : _subscriptions) {
    if (s.type == proto::CommandSubscribe::Key_Shared && !key_hash) {
      auto fields = dispatch_fields_of(entry);
      key_hash = fields ? sticky_key_hash(fields.value()) : std::uint16_t{0};
    }
    if (auto* c = receiver(s, key_hash.value_or(0), messages)) {
      c->send_volatile(entry, messages);
    } else {
      s.dropped.record(static_cast<std::uint64_t>(messages), entry.size());
    }
  }
}

consumer* non_persistent_topic::receiver(subscription_state& s, std::uint16_t key_hash, int messages) {
  auto has_room = [&](const consumer& c) { return c.permits() >= messages; };
  if (s.consumers.empty()) return nullptr;
  switch (s.type) {
    case proto::CommandSubscribe::Exclusive:
    case proto::CommandSubscribe::Failover: {
      auto* active = std::min_element(s.consumers.begin(), s.consumers.end(), failover_before)->get();
      return has_room(*active) ? active : nullptr;
    }
    case proto::CommandSubscribe::Shared:
      for (std::size_t i = 0; i < s.consumers.size(); ++i) {
        auto& c = s.consumers[(s.next + i) % s.consumers.size()];
        if (has_room(*c)) {
          s.next = (s.next + i + 1) % s.consumers.size();
          return c.get();
        }
      }
      return nullptr;
    case proto::CommandSubscribe::Key_Shared: {
      auto* owner = s.selector->select(key_hash);
      return owner != nullptr && has_room(*owner) ? owner : nullptr;
    }
  }
  return nullptr;
}

void non_persistent_topic::remove_producer(const producer& p) {
  std::erase_if(_producers, [&](const auto& x) {
    if (x.get() != &p) return false;
    x->mark_closed();
    return true;
  });
}

// ---------------------------------------------------------------------------------------
// Consumers

result<std::shared_ptr<consumer>> non_persistent_topic::subscribe(std::shared_ptr<client_channel> conn,
                                                                  const proto::CommandSubscribe& request) {
  const auto& name = request.subscription();
  if (name.find_first_not_of(" \t\r\n") == std::string::npos) {
    return fail(errc::producer_busy, "Empty subscription name");
  }
  std::size_t consumers = 0;
  for (const auto& [n, s] : _subscriptions) consumers += s.consumers.size();
  if (_config.max_consumers_per_topic > 0 && consumers >= static_cast<std::size_t>(_config.max_consumers_per_topic)) {
    return fail(errc::consumer_busy, fmt::format("Topic '{}' reached max consumers limit", _name.full()));
  }
  auto [it, fresh] = _subscriptions.try_emplace(name);
  auto& s = it->second;
  if (!fresh && !s.consumers.empty()) {
    if (s.type != request.subtype()) {
      return fail(errc::consumer_busy, fmt::format("Subscription {} is of type {}, not {}", name, type_name(s.type),
                                                   type_name(request.subtype())));
    }
    if (s.type == proto::CommandSubscribe::Exclusive) {
      return fail(errc::consumer_busy, "Exclusive consumer is already connected");
    }
  }
  if (s.consumers.empty()) {
    s.type = request.subtype();
    s.selector.reset();
    if (s.type == proto::CommandSubscribe::Key_Shared) {
      const bool sticky = request.has_keysharedmeta() && request.keysharedmeta().keysharedmode() == proto::STICKY;
      s.selector = sticky ? make_sticky_range_selector()
                          : make_consistent_hash_selector(_config.key_shared_consistent_hashing_replica_points);
    }
  }
  auto c = std::make_shared<consumer>(std::move(conn), shared_from_this(), consumer_id{request.consumer_id()},
                                      request.consumer_name(), request.priority_level());
  c->set_metadata(key_values(request.metadata()));
  if (s.selector) {
    auto added = s.selector->add(*c, request.keysharedmeta());
    if (!added) {
      if (s.consumers.empty()) _subscriptions.erase(it);
      return fail(std::move(added).error());
    }
  }
  s.consumers.push_back(c);
  return c;
}

void non_persistent_topic::flow(consumer& c, std::uint32_t permits) { c.add_permits(permits); }

result<void> non_persistent_topic::ack(consumer& /*c*/, const proto::CommandAck& /*ack*/) { return success(); }

void non_persistent_topic::redeliver(consumer& /*c*/, const std::vector<mledger::position>& /*which*/) {}

void non_persistent_topic::remove_consumer(const consumer& c) {
  for (auto sub = _subscriptions.begin(); sub != _subscriptions.end(); ++sub) {
    auto& s = sub->second;
    auto it = std::find_if(s.consumers.begin(), s.consumers.end(), [&](const auto& x) { return x.get() == &c; });
    if (it == s.consumers.end()) continue;
    if (s.selector) s.selector->remove(c);
    (*it)->mark_closed();
    s.consumers.erase(it);
    // Nothing is kept for a subscription without consumers: it goes with the last one.
    if (s.consumers.empty()) _subscriptions.erase(sub);
    return;
  }
}

awaitable<result<void>> non_persistent_topic::unsubscribe(const consumer& c, bool force) {
  for (auto sub = _subscriptions.begin(); sub != _subscriptions.end(); ++sub) {
    auto& s = sub->second;
    auto it = std::find_if(s.consumers.begin(), s.consumers.end(), [&](const auto& x) { return x.get() == &c; });
    if (it == s.consumers.end()) continue;
    if (s.consumers.size() > 1 && !force) {
      co_return fail(errc::precondition_failed, fmt::format("Subscription {} has other consumers", sub->first));
    }
    for (const auto& other : s.consumers) {
      if (other.get() != &c) other->send_close();
      other->mark_closed();
    }
    _subscriptions.erase(sub);
    co_return success();
  }
  co_return fail(errc::subscription_not_found, "the consumer has no subscription");
}

awaitable<result<proto::MessageIdData>> non_persistent_topic::last_message_id() {
  co_return fail(errc::not_allowed, "get last message id on non-persistent topic is not allowed");
}

awaitable<result<void>> non_persistent_topic::seek(consumer& /*c*/, const proto::CommandSeek& /*command*/) {
  // Nothing is kept to seek to: upstream answers success and delivers on from now.
  co_return success();
}

// ---------------------------------------------------------------------------------------
// Stats and unload

topic_stats non_persistent_topic::stats() {
  const auto now = _clock.now();
  _in.roll(now);
  auto out = topic_stats_from(_in);
  out.msg_drop_rate = 0;
  for (const auto& p : _producers) {
    p->meter().roll(now);
    out.publishers.push_back(publisher_stats_of(*p));
  }
  for (auto& [name, s] : _subscriptions) {
    s.dropped.roll(now);
    subscription_stats ss;
    ss.type = type_name(s.type);
    ss.is_durable = false;
    ss.msg_drop_rate = s.dropped.message_rate();
    for (const auto& c : s.consumers) {
      c->meter().roll(now);
      auto cs = consumer_stats_of(*c);
      if (s.selector) cs.key_hash_ranges = s.selector->ranges_of(*c);
      ss.msg_rate_out += cs.msg_rate_out;
      ss.msg_throughput_out += cs.msg_throughput_out;
      ss.msg_out_counter += cs.msg_out_counter;
      ss.bytes_out_counter += cs.bytes_out_counter;
      ss.consumers.push_back(std::move(cs));
    }
    out.msg_rate_out += ss.msg_rate_out;
    out.msg_throughput_out += ss.msg_throughput_out;
    out.msg_out_counter += ss.msg_out_counter;
    out.bytes_out_counter += ss.bytes_out_counter;
    *out.msg_drop_rate += *ss.msg_drop_rate;
    out.subscriptions.emplace(name, std::move(ss));
  }
  return out;
}

void non_persistent_topic::close() {
  for (const auto& p : _producers) {
    p->send_close();
    p->mark_closed();
  }
  _producers.clear();
  for (auto& [name, s] : _subscriptions) {
    for (const auto& c : s.consumers) {
      c->send_close();
      c->mark_closed();
    }
  }
  _subscriptions.clear();
}

}  // namespace magnetar::broker
