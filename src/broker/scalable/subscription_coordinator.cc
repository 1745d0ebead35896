#include "broker/scalable/subscription_coordinator.h"

#include "broker/api/client_channel.h"
#include "broker/scalable/layout_codec.h"
#include "io/run_on.h"
#include "wire/frame.h"

#include <algorithm>

namespace magnetar::broker::scalable {

subscription_coordinator::subscription_coordinator(asio::any_io_executor executor, base::clock& clock,
                                                   coordinator_settings settings, wire::topic_name topic,
                                                   std::string subscription, segment_layout layout, drain_probe probe)
    : _executor(std::move(executor)),
      _clock(clock),
      _settings(settings),
      _topic(std::move(topic)),
      _parts{_topic.tenant(), _topic.namespace_part(), _topic.local_name()},
      _subscription(std::move(subscription)),
      _layout(std::move(layout)),
      _probe(std::move(probe)) {}

std::map<std::string, consumer_assignment> subscription_coordinator::compute() const {
  std::set<std::string> names;
  for (const auto& [name, s] : _sessions) names.insert(name);
  return compute_assignments(_layout, _parts, names, _drained);
}

consumer_assignment subscription_coordinator::attach(const std::string& name, std::uint64_t consumer_id,
                                                     const std::shared_ptr<client_channel>& conn) {
  auto [it, fresh] = _sessions.try_emplace(name);
  auto& s = it->second;
  s.consumer_id = consumer_id;
  s.connection_id = conn->id();
  s.conn = conn;
  s.grace_generation = ++_next_grace_generation;  // a pending grace timer no longer applies
  auto all = compute();
  s.last_pushed = all[name];
  if (fresh) {
    rebalance(name);
    restart_drain_checks();
  }
  return s.last_pushed;
}

void subscription_coordinator::connection_closed(std::uint64_t connection_id,
                                                 std::function<void(std::string)> expired) {
  for (auto& [name, s] : _sessions) {
    if (s.connection_id != connection_id) continue;
    s.conn.reset();
    s.connection_id = 0;
    s.grace_generation = ++_next_grace_generation;
    io::spawn(_executor, [self = shared_from_this(), name = name, generation = s.grace_generation, expired]() {
      return self->grace_timer(name, generation, expired);
    });
  }
}

awaitable<void> subscription_coordinator::grace_timer(std::string name, std::uint64_t generation,
                                                      std::function<void(std::string)> expired) {
  io::timer timer(_executor, _clock);
  co_await timer.wait_for(_settings.grace_period);
  auto it = _sessions.find(name);
  if (_closed || it == _sessions.end() || it->second.grace_generation != generation) co_return;
  _sessions.erase(it);
  expired(name);
  rebalance("");
  restart_drain_checks();
}

void subscription_coordinator::layout_changed(segment_layout layout) {
  _layout = std::move(layout);
  std::erase_if(_drained, [&](std::uint64_t id) { return _layout.find(id) == nullptr; });
  rebalance("");
  restart_drain_checks();
}

void subscription_coordinator::close() {
  _closed = true;
  ++_drain_generation;
  if (_drain_timer) _drain_timer->cancel();
  _sessions.clear();
}

void subscription_coordinator::rebalance(const std::string& except) {
  if (_closed) return;
  auto all = compute();
  for (auto& [name, s] : _sessions) {
    if (name == except) continue;
    const auto& now = all[name];
    if (now == s.last_pushed) continue;
    s.last_pushed = now;
    push(name, s, now);
  }
}

void subscription_coordinator::push(const std::string&, session& s, const consumer_assignment& assignment) {
  auto conn = s.conn.lock();
  if (!conn) return;  // disconnected: it gets its assignment when it registers again
  proto::BaseCommand command;
  command.set_type(proto::BaseCommand::SCALABLE_TOPIC_ASSIGNMENT_UPDATE);
  auto& update = *command.mutable_scalabletopicassignmentupdate();
  update.set_consumer_id(s.consumer_id);
  fill_assignment(assignment, *update.mutable_assignment());
  conn->send(wire::encode_command(command));
}

void subscription_coordinator::check_drains_now() { restart_drain_checks(true); }

void subscription_coordinator::restart_drain_checks(bool check_first) {
  ++_drain_generation;
  if (_drain_timer) _drain_timer->cancel();
  if (_closed || _sessions.empty() || drain_candidates(_layout, _drained).empty()) return;
  io::spawn(_executor, [self = shared_from_this(), generation = _drain_generation, check_first]() {
    return self->drain_loop(generation, check_first);
  });
}

awaitable<void> subscription_coordinator::drain_loop(std::uint64_t generation, bool check_first) {
  auto delay = _settings.drain_check_initial;
  auto timer = std::make_shared<io::timer>(_executor, _clock);
  while (generation == _drain_generation) {
    _drain_timer = timer;
    if (check_first) {
      check_first = false;
    } else {
      const bool waited = co_await timer->wait_for(delay);
      if (!waited) co_return;  // restarted or closed
    }
    if (generation != _drain_generation) co_return;
    auto candidates = drain_candidates(_layout, _drained);
    if (candidates.empty()) co_return;
    bool progress = false;
    for (auto id : candidates) {
      const auto* segment = _layout.find(id);
      if (segment == nullptr) continue;
      const bool drained = co_await _probe(
          segment_topic_name(_parts.tenant, _parts.namespace_part, _parts.local, *segment), _subscription);
      if (generation != _drain_generation) co_return;
      if (drained) {
        _drained.insert(id);
        progress = true;
      }
    }
    if (progress) {
      rebalance("");
      delay = _settings.drain_check_initial;
    } else {
      delay = std::min(delay * 2, _settings.drain_check_max);
    }
  }
}

}  // namespace magnetar::broker::scalable
