// The namespace watch of scalable_service (WATCH_SCALABLE_TOPICS): which scalable topics
// a namespace holds, told as a snapshot, then as diffs when topics come and go.
#include "broker/api/client_channel.h"
#include "broker/api/protocol_error.h"
#include "broker/scalable/scalable_service.h"
#include "io/run_on.h"
#include "wire/frame.h"
#include "wire/topic_name.h"

#include <algorithm>

namespace magnetar::broker::scalable {

namespace {

proto::BaseCommand update_for(std::uint64_t watch_id) {
  proto::BaseCommand reply;
  reply.set_type(proto::BaseCommand::WATCH_SCALABLE_TOPICS_UPDATE);
  reply.mutable_watchscalabletopicsupdate()->set_watch_id(watch_id);
  return reply;
}

}  // namespace

void scalable_service::watch_namespace(std::shared_ptr<client_channel> conn,
                                       proto::CommandWatchScalableTopics command) {
  io::spawn(_deps.home.executor(), [this, conn = std::move(conn), command = std::move(command)]() mutable {
    return do_watch_namespace(std::move(conn), std::move(command));
  });
}

void scalable_service::unwatch_namespace(std::uint64_t connection_id, std::uint64_t watch_id) {
  asio::post(_deps.home.executor(), [this, connection_id, watch_id] {
    _namespace_watchers.erase({connection_id, watch_id});
  });
}

awaitable<result<std::set<std::string>>> scalable_service::matching(std::string namespace_name,
                                                                    std::map<std::string, std::string> filters) {
  MAGNETAR_CO_TRY(names, co_await _store.list(namespace_name));
  std::set<std::string> out;
  for (const auto& name : names) {
    if (!filters.empty()) {
      auto topic = wire::topic_name::parse(name);
      if (!topic) continue;
      auto layout = co_await _store.read(topic.value());
      if (!layout || !layout.value()) continue;  // deleted meanwhile
      const auto& properties = layout.value()->properties;
      const bool all = std::all_of(filters.begin(), filters.end(), [&](const auto& f) {
        auto it = properties.find(f.first);
        return it != properties.end() && it->second == f.second;
      });
      if (!all) continue;
    }
    out.insert(name);
  }
  co_return out;
}

awaitable<void> scalable_service::do_watch_namespace(std::shared_ptr<client_channel> conn,
                                                     proto::CommandWatchScalableTopics command) {
  auto reply = update_for(command.watch_id());
  auto& update = *reply.mutable_watchscalabletopicsupdate();
  const auto& ns = command.namespace_();
  const auto slash = ns.find('/');
  if (slash == std::string::npos || !wire::is_valid_name_part(ns.substr(0, slash)) ||
      !wire::is_valid_name_part(ns.substr(slash + 1))) {
    update.set_error(proto::InvalidTopicName);
    update.set_message("WATCH_SCALABLE_TOPICS needs a namespace as tenant/namespace");
    conn->send(wire::encode_command(reply));
    co_return;
  }
  std::map<std::string, std::string> filters;
  for (const auto& kv : command.property_filters()) filters[kv.key()] = kv.value();
  auto topics = co_await matching(ns, filters);
  if (!topics) {
    update.set_error(server_error_of(topics.error()));
    update.set_message(message_of(topics.error()));
    conn->send(wire::encode_command(reply));
    co_return;
  }
  if (_stopped || conn->is_closed()) co_return;
  for (const auto& t : topics.value()) update.mutable_snapshot()->add_topics(t);
  if (topics.value().empty()) update.mutable_snapshot();  // an empty snapshot, not no event
  _namespace_watchers[{conn->id(), command.watch_id()}] =
      namespace_watcher{conn, command.watch_id(), ns, std::move(filters), std::move(topics).value()};
  conn->send(wire::encode_command(reply));
}

awaitable<void> scalable_service::namespace_changed(std::string namespace_name) {
  std::vector<std::pair<std::uint64_t, std::uint64_t>> keys;
  for (const auto& [key, w] : _namespace_watchers) {
    if (w.namespace_name == namespace_name) keys.push_back(key);
  }
  for (const auto& key : keys) {
    auto it = _namespace_watchers.find(key);
    if (it == _namespace_watchers.end()) continue;
    auto now = co_await matching(namespace_name, it->second.filters);
    it = _namespace_watchers.find(key);  // it may have gone while reading
    if (!now || it == _namespace_watchers.end() || _stopped) continue;
    auto& w = it->second;
    auto reply = update_for(w.watch_id);
    auto& diff = *reply.mutable_watchscalabletopicsupdate()->mutable_diff();
    for (const auto& t : w.topics) {
      if (!now.value().contains(t)) diff.add_removed(t);
    }
    for (const auto& t : now.value()) {
      if (!w.topics.contains(t)) diff.add_added(t);
    }
    if (diff.added_size() == 0 && diff.removed_size() == 0) continue;
    w.topics = std::move(now).value();
    if (auto conn = w.conn.lock()) conn->send(wire::encode_command(reply));
  }
}

}  // namespace magnetar::broker::scalable
