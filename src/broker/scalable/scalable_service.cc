#include "broker/scalable/scalable_service.h"

#include <spdlog/spdlog.h>
#include "broker/api/client_channel.h"
#include "broker/api/errc.h"
#include "broker/api/protocol_error.h"
#include "broker/scalable/layout_codec.h"
#include "io/run_on.h"
#include "wire/errc.h"
#include "wire/frame.h"

#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <set>

namespace magnetar::broker::scalable {

result<wire::topic_name> scalable_name(std::string_view text) {
  MAGNETAR_TRY(name, wire::topic_name::parse(text));
  if (name.is_scalable()) return name;
  if (name.is_segment() || name.partition() >= 0 || !name.is_persistent()) {
    return fail(wire::errc::invalid_topic_name, fmt::format("{} is not a scalable topic's name", text));
  }
  return wire::topic_name::parse(fmt::format("topic://{}/{}", name.namespace_name(), name.local_name()));
}

namespace {

bool is(const error& e, errc code) { return e.code() == code; }

std::int64_t now_ms(base::clock& clock) {
  return std::chrono::duration_cast<std::chrono::milliseconds>(clock.wall_now().time_since_epoch()).count();
}

}  // namespace

scalable_service::scalable_service(scalable_service_deps deps, coordinator_settings settings)
    : _deps(std::move(deps)), _settings(settings), _store(_deps.store) {}

scalable_service::~scalable_service() = default;

awaitable<result<void>> scalable_service::start() {
  MAGNETAR_CO_TRY(session, co_await _deps.store.open_session());
  _session = session;
  _listener = _deps.store.register_listener(_deps.home.executor(), [this](const meta::notification& n) {
    // Every change in the store comes here (cursors, ledgers...): only a layout node,
    // /topics/<tenant>/<ns>/<topic>, concerns this service.
    constexpr std::string_view prefix = "/topics/";
    if (_stopped || !n.path.starts_with(prefix)) return;
    const auto rest = std::string_view(n.path).substr(prefix.size());
    if (std::count(rest.begin(), rest.end(), '/') != 2) return;
    if (n.type == meta::notification_type::created || n.type == meta::notification_type::deleted) {
      const auto ns = std::string(rest.substr(0, rest.rfind('/')));
      io::spawn(_deps.home.executor(), [this, ns]() { return namespace_changed(ns); });
      return;
    }
    if (n.type != meta::notification_type::modified) return;
    auto it = _topics.find(fmt::format("topic://{}", rest));
    if (it == _topics.end()) return;
    io::spawn(_deps.home.executor(), [this, name = it->second.name]() { return refresh(name); });
  });
  co_return success();
}

awaitable<void> scalable_service::stop() {
  co_await io::run_on(_deps.home, [&]() {
    _stopped = true;
    _listener = {};
    for (auto& [key, state] : _topics) {
      for (auto& [sub, c] : state.coordinators) c->close();
    }
    _topics.clear();
  });
}

scalable_service::topic_state& scalable_service::state_of(const wire::topic_name& topic) {
  auto [it, fresh] = _topics.try_emplace(topic.full());
  if (fresh) it->second.name = topic;
  return it->second;
}

wire::topic_name scalable_service::segment_name(const wire::topic_name& topic, const segment_info& segment) const {
  return wire::topic_name::parse(
             segment_topic_name(topic.tenant(), topic.namespace_part(), topic.local_name(), segment))
      .value();
}

// ---- DAG watch ----------------------------------------------------------------------

void scalable_service::watch(std::shared_ptr<client_channel> conn, proto::CommandScalableTopicLookup command) {
  io::spawn(_deps.home.executor(), [this, conn = std::move(conn), command = std::move(command)]() mutable {
    return do_watch(std::move(conn), std::move(command));
  });
}

awaitable<void> scalable_service::do_watch(std::shared_ptr<client_channel> conn,
                                           proto::CommandScalableTopicLookup command) {
  auto answer_error = [&](proto::ServerError code, std::string message) {
    proto::BaseCommand reply;
    reply.set_type(proto::BaseCommand::SCALABLE_TOPIC_UPDATE);
    auto& update = *reply.mutable_scalabletopicupdate();
    update.set_session_id(command.session_id());
    update.set_error(code);
    update.set_message(std::move(message));
    conn->send(wire::encode_command(reply));
  };
  auto name = scalable_name(command.topic());
  if (!name) {
    answer_error(proto::InvalidTopicName, message_of(name.error()));
    co_return;
  }
  auto layout = co_await _store.read(name.value());
  if (layout && !layout.value() && command.create_if_missing()) {
    auto allowed = co_await _deps.may_auto_create(name.value().namespace_name());
    if (allowed && allowed.value()) {
      auto created = co_await do_create(name.value(), 1, {});
      if (!created && !is(created.error(), errc::conflict)) {
        answer_error(server_error_of(created.error()), message_of(created.error()));
        co_return;
      }
      layout = co_await _store.read(name.value());
    }
  }
  if (!layout) {
    answer_error(server_error_of(layout.error()), message_of(layout.error()));
    co_return;
  }
  if (!layout.value()) {
    answer_error(proto::TopicNotFound, fmt::format("Scalable topic not found: {}", name.value().full()));
    co_return;
  }
  if (_stopped || conn->is_closed()) co_return;
  auto& state = state_of(name.value());
  if (!state.layout || state.layout->epoch <= layout.value()->epoch) state.layout = *layout.value();
  auto& w = state.watchers[{conn->id(), command.session_id()}];
  w = watcher{conn, command.session_id()};
  push_layout(state, w);
}

void scalable_service::push_layout(topic_state& state, const watcher& w) {
  auto conn = w.conn.lock();
  if (!conn || !state.layout) return;
  proto::BaseCommand reply;
  reply.set_type(proto::BaseCommand::SCALABLE_TOPIC_UPDATE);
  auto& update = *reply.mutable_scalabletopicupdate();
  update.set_session_id(w.session_id);
  update.set_resolved_topic_name(state.name.full());
  fill_dag(*state.layout, _deps.broker_url, *update.mutable_dag());
  conn->send(wire::encode_command(reply));
}

void scalable_service::unwatch(std::uint64_t connection_id, std::uint64_t session_id) {
  asio::post(_deps.home.executor(), [this, connection_id, session_id] {
    for (auto& [key, state] : _topics) state.watchers.erase({connection_id, session_id});
  });
}

void scalable_service::connection_closed(std::uint64_t connection_id) {
  asio::post(_deps.home.executor(), [this, connection_id] {
    if (_stopped) return;
    std::erase_if(_namespace_watchers, [&](const auto& entry) { return entry.first.first == connection_id; });
    for (auto& [key, state] : _topics) {
      std::erase_if(state.watchers, [&](const auto& entry) { return entry.first.first == connection_id; });
      for (auto& [sub, coordinator] : state.coordinators) {
        coordinator->connection_closed(connection_id, [this, topic = state.name, sub = sub](std::string consumer) {
          io::spawn(_deps.home.executor(), [this, topic, sub, consumer = std::move(consumer)]() -> awaitable<void> {
            auto removed = co_await _store.remove_consumer(topic, sub, consumer);
            if (!removed) spdlog::warn("scalable: dropping {} of {}: {}", consumer, sub, removed.error());
          });
        });
      }
    }
  });
}

void scalable_service::segment_drained(const wire::topic_name& segment, const std::string& subscription) {
  // segment://t/n/x/<descriptor> belongs to topic://t/n/x.
  const auto& local = segment.local_name();
  const auto topic = fmt::format("topic://{}/{}", segment.namespace_name(), local.substr(0, local.rfind('/')));
  asio::post(_deps.home.executor(), [this, topic, subscription] {
    if (_stopped) return;
    auto it = _topics.find(topic);
    if (it == _topics.end()) return;
    auto coordinator = it->second.coordinators.find(subscription);
    if (coordinator != it->second.coordinators.end()) coordinator->second->check_drains_now();
  });
}

awaitable<void> scalable_service::refresh(wire::topic_name topic) {
  auto layout = co_await _store.read(topic);
  if (_stopped || !layout || !layout.value()) co_return;
  auto it = _topics.find(topic.full());
  if (it == _topics.end()) co_return;
  auto& state = it->second;
  if (state.layout && state.layout->epoch >= layout.value()->epoch) co_return;
  state.layout = *layout.value();
  for (const auto& [key, w] : state.watchers) push_layout(state, w);
  for (auto& [sub, coordinator] : state.coordinators) coordinator->layout_changed(*state.layout);
}

// ---- stream consumers ---------------------------------------------------------------

void scalable_service::subscribe(std::shared_ptr<client_channel> conn, proto::CommandScalableTopicSubscribe command) {
  io::spawn(_deps.home.executor(), [this, conn = std::move(conn), command = std::move(command)]() mutable {
    return do_subscribe(std::move(conn), std::move(command));
  });
}

awaitable<void> scalable_service::do_subscribe(std::shared_ptr<client_channel> conn,
                                               proto::CommandScalableTopicSubscribe command) {
  proto::BaseCommand reply;
  reply.set_type(proto::BaseCommand::SCALABLE_TOPIC_SUBSCRIBE_RESPONSE);
  auto& response = *reply.mutable_scalabletopicsubscriberesponse();
  response.set_request_id(command.request_id());
  auto refuse = [&](proto::ServerError code, std::string message) {
    response.set_error(code);
    response.set_message(std::move(message));
    conn->send(wire::encode_command(reply));
  };
  if (command.subscription().empty() || command.consumer_name().empty()) {
    refuse(proto::InvalidTopicName, "SCALABLE_TOPIC_SUBSCRIBE needs a subscription and a consumer name");
    co_return;
  }
  if (command.consumer_type() != proto::STREAM) {
    refuse(proto::NotAllowedError, "operation not supported: only STREAM consumers register with the controller");
    co_return;
  }
  auto name = scalable_name(command.topic());
  if (!name) {
    refuse(proto::InvalidTopicName, message_of(name.error()));
    co_return;
  }
  const auto& topic = name.value();
  auto layout = co_await _store.read(topic);
  if (!layout) {
    refuse(server_error_of(layout.error()), message_of(layout.error()));
    co_return;
  }
  if (!layout.value()) {
    refuse(proto::TopicNotFound, fmt::format("Scalable topic not found: {}", topic.full()));
    co_return;
  }
  auto registered = co_await ensure_controller(topic);
  if (registered) registered = co_await _store.add_subscription(topic, command.subscription(), "STREAM");
  if (registered) registered = co_await _store.add_consumer(topic, command.subscription(), command.consumer_name());
  if (!registered) {
    refuse(server_error_of(registered.error()), message_of(registered.error()));
    co_return;
  }
  if (_stopped || conn->is_closed()) co_return;
  auto& state = state_of(topic);
  if (!state.layout || state.layout->epoch < layout.value()->epoch) state.layout = *layout.value();
  auto& coordinator = state.coordinators[command.subscription()];
  if (!coordinator) {
    coordinator = std::make_shared<subscription_coordinator>(
        _deps.home.executor(), _deps.clock, _settings, topic, command.subscription(), *state.layout,
        [this](std::string segment, std::string subscription) { return drained(segment, subscription); });
  }
  auto assignment = coordinator->attach(command.consumer_name(), command.consumer_id(), conn);
  fill_assignment(assignment, *response.mutable_assignment());
  conn->send(wire::encode_command(reply));
}

awaitable<bool> scalable_service::drained(std::string segment_topic, std::string subscription) {
  auto name = wire::topic_name::parse(segment_topic);
  if (!name) co_return false;
  auto stats = co_await _deps.topics.stats(name.value());
  if (!stats) co_return false;
  auto it = stats.value().subscriptions.find(subscription);
  co_return it != stats.value().subscriptions.end() && it->second.msg_backlog == 0;
}

awaitable<result<void>> scalable_service::ensure_controller(const wire::topic_name& topic) {
  MAGNETAR_CO_TRY(leader, co_await _store.claim_controller(topic, *_session, _deps.broker_id));
  if (!leader) {
    co_return fail(errc::service_not_ready, fmt::format("This broker is not the leader for topic: {}", topic.full()));
  }
  co_return success();
}

// ---- admin --------------------------------------------------------------------------

awaitable<result<void>> scalable_service::create_scalable(wire::topic_name topic, int segments,
                                                          std::map<std::string, std::string> properties) {
  co_return co_await io::run_on(_deps.home, [&]() { return do_create(topic, segments, properties); });
}

awaitable<result<void>> scalable_service::do_create(wire::topic_name topic, int segments,
                                                    std::map<std::string, std::string> properties) {
  MAGNETAR_CO_TRY(layout, segment_layout::initial(segments, now_ms(_deps.clock)));
  layout.properties = std::move(properties);
  MAGNETAR_CO_TRY(co_await _store.create(topic, layout));
  std::vector<std::uint64_t> ids;
  for (const auto& [id, s] : layout.segments) ids.push_back(id);
  co_return co_await create_segments(topic, layout, ids, {});
}

awaitable<result<void>> scalable_service::create_segments(const wire::topic_name& topic, const segment_layout& layout,
                                                          const std::vector<std::uint64_t>& ids,
                                                          const std::vector<std::string>& subscriptions) {
  for (auto id : ids) {
    const auto segment = segment_name(topic, *layout.find(id));
    auto created = co_await _deps.topics.create_topic(segment);
    if (!created && !is(created.error(), errc::conflict)) co_return created;
    for (const auto& sub : subscriptions) {
      auto cursor = co_await _deps.topics.create_subscription(segment, sub, message_position::earliest());
      if (!cursor && !is(cursor.error(), errc::conflict)) co_return cursor;
    }
  }
  co_return success();
}

awaitable<result<std::string>> scalable_service::scalable_metadata(wire::topic_name topic) {
  MAGNETAR_CO_TRY(layout, co_await _store.read(topic));
  if (!layout) co_return fail(errc::topic_not_found, fmt::format("Scalable topic not found: {}", topic.full()));
  co_return to_json(*layout).dump();
}

awaitable<result<std::vector<std::string>>> scalable_service::list_scalable(std::string namespace_name) {
  co_return co_await _store.list(namespace_name);
}

awaitable<result<void>> scalable_service::delete_scalable(wire::topic_name topic) {
  co_return co_await io::run_on(_deps.home, [&]() { return do_delete(topic); });
}

awaitable<result<void>> scalable_service::do_delete(wire::topic_name topic) {
  MAGNETAR_CO_TRY(layout, co_await _store.read(topic));
  if (!layout) co_return fail(errc::topic_not_found, fmt::format("Scalable topic not found: {}", topic.full()));
  MAGNETAR_CO_TRY(co_await _store.remove(topic));
  if (auto it = _topics.find(topic.full()); it != _topics.end()) {
    for (auto& [sub, c] : it->second.coordinators) c->close();
    _topics.erase(it);
  }
  for (const auto& [id, s] : layout->segments) {
    auto deleted = co_await _deps.topics.delete_topic(segment_name(topic, s), true);
    if (!deleted && !is(deleted.error(), errc::topic_not_found)) {
      spdlog::warn("scalable: deleting segment {} of {}: {}", id, topic.full(), deleted.error());
    }
  }
  co_return success();
}

awaitable<result<void>> scalable_service::split_segment(wire::topic_name topic, std::uint64_t segment) {
  const auto now = now_ms(_deps.clock);
  co_return co_await io::run_on(_deps.home, [&]() {
    return do_change(topic, [segment, now](const segment_layout& l) { return l.split(segment, now); });
  });
}

awaitable<result<void>> scalable_service::merge_segments(wire::topic_name topic, std::uint64_t first,
                                                         std::uint64_t second) {
  const auto now = now_ms(_deps.clock);
  co_return co_await io::run_on(_deps.home, [&]() {
    return do_change(topic, [first, second, now](const segment_layout& l) { return l.merge(first, second, now); });
  });
}

awaitable<result<std::vector<std::string>>> scalable_service::subscriptions_of(
    const wire::topic_name& topic, const segment_layout& layout, const std::vector<std::uint64_t>& parents) {
  MAGNETAR_CO_TRY(recorded, co_await _store.subscriptions(topic));
  std::set<std::string> all(recorded.begin(), recorded.end());
  for (auto id : parents) {
    // Queue consumers' subscriptions are recorded only on the segments they read.
    auto on_parent = co_await _deps.topics.list_subscriptions(segment_name(topic, *layout.find(id)));
    if (on_parent) all.insert(on_parent.value().begin(), on_parent.value().end());
  }
  co_return std::vector<std::string>(all.begin(), all.end());
}

awaitable<result<void>> scalable_service::do_change(wire::topic_name topic, layout_change change) {
  MAGNETAR_CO_TRY(current, co_await _store.read(topic));
  if (!current) co_return fail(errc::topic_not_found, fmt::format("Scalable topic not found: {}", topic.full()));
  MAGNETAR_CO_TRY(co_await ensure_controller(topic));
  MAGNETAR_CO_TRY(planned, change(*current));
  MAGNETAR_CO_TRY(subscriptions, co_await subscriptions_of(topic, *current, planned.sealed));
  // Children first, with every subscription's cursor: nothing a producer writes there
  // once the layout names them is missed by a subscription.
  MAGNETAR_CO_TRY(co_await create_segments(topic, planned.layout, planned.created, subscriptions));
  // Parents sealed before the layout moves: never both parent and child writable.
  for (auto id : planned.sealed) {
    auto terminated = co_await _deps.topics.terminate_topic(segment_name(topic, *current->find(id)));
    if (!terminated && !is(terminated.error(), errc::topic_not_found)) co_return fail(std::move(terminated).error());
  }
  MAGNETAR_CO_TRY(co_await _store.update(topic, change));
  co_await refresh(topic);
  co_return success();
}

}  // namespace magnetar::broker::scalable
