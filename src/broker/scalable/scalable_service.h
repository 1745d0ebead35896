// scalable_service: the broker's scalable topics (topic://): their layouts, the DAG
// watches of clients, the controller's split and merge, and the stream consumers'
// subscription coordinators. Implements scalable_admin for the REST layer.
//
// A topic's controller is the broker holding its ephemeral controller node (claimed on
// first use; the single broker of a standalone always wins). Split and merge run there,
// in upstream's order: find the subscriptions (the metadata's and the parents'), create
// the children with those subscriptions at the earliest, terminate the parents (their
// producers are closed, later sends refused: the clients re-route), compare-and-set the
// layout, then tell the watchers and coordinators. Segments are ordinary topics driven
// through topic_admin.
//
// Every layout change committed to the store (from here or another broker) reaches the
// DAG watchers as a full SCALABLE_TOPIC_UPDATE.
//
// All state lives on one shard (the home shard); public calls hop there.
#pragma once

#include "base/clock.h"
#include "broker/api/scalable_admin.h"
#include "broker/api/topic_admin.h"
#include "broker/scalable/scalable_store.h"
#include "broker/scalable/subscription_coordinator.h"
#include "io/shard.h"
#include "meta/store.h"
#include "proto/pulsar_api.pb.h"

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <utility>

namespace magnetar::broker {
class client_channel;
}

namespace magnetar::broker::scalable {

struct scalable_service_deps {
  meta::store& store;
  topic_admin& topics;
  base::clock& clock;
  io::shard& home;
  std::string broker_url;  // pulsar://host:port, the controller's address in DAGs
  std::string broker_id;
  // Auto-creation on a lookup with create_if_missing (allowAutoTopicCreation and the
  // namespace existing).
  std::function<awaitable<result<bool>>(std::string namespace_name)> may_auto_create;
};

class scalable_service final : public scalable_admin {
 public:
  scalable_service(scalable_service_deps deps, coordinator_settings settings);
  ~scalable_service() override;

  awaitable<result<void>> start();
  awaitable<void> stop();

  // SCALABLE_TOPIC_LOOKUP: answers with the layout and keeps the session for pushes.
  void watch(std::shared_ptr<client_channel> conn, proto::CommandScalableTopicLookup command);
  // SCALABLE_TOPIC_CLOSE.
  void unwatch(std::uint64_t connection_id, std::uint64_t session_id);
  // WATCH_SCALABLE_TOPICS: the namespace's scalable topics (those whose properties match
  // every filter), a snapshot now and a diff on every creation or deletion
  // (namespace_watch.cc). The reconnect hash is not computed: a snapshot always comes.
  void watch_namespace(std::shared_ptr<client_channel> conn, proto::CommandWatchScalableTopics command);
  // WATCH_SCALABLE_TOPICS_CLOSE.
  void unwatch_namespace(std::uint64_t connection_id, std::uint64_t watch_id);
  // SCALABLE_TOPIC_SUBSCRIBE: registers a stream consumer, answers its assignment.
  void subscribe(std::shared_ptr<client_channel> conn, proto::CommandScalableTopicSubscribe command);
  // A sealed segment's subscription has acknowledged everything: its coordinator checks
  // drains now instead of at its next scheduled check. Any thread.
  void segment_drained(const wire::topic_name& segment, const std::string& subscription);
  // The connection's watches end; its stream consumers start their grace period.
  void connection_closed(std::uint64_t connection_id);

  // scalable_admin
  awaitable<result<void>> create_scalable(wire::topic_name topic, int segments,
                                          std::map<std::string, std::string> properties) override;
  awaitable<result<std::string>> scalable_metadata(wire::topic_name topic) override;
  awaitable<result<std::vector<std::string>>> list_scalable(std::string namespace_name) override;
  awaitable<result<void>> delete_scalable(wire::topic_name topic) override;
  awaitable<result<void>> split_segment(wire::topic_name topic, std::uint64_t segment) override;
  awaitable<result<void>> merge_segments(wire::topic_name topic, std::uint64_t first, std::uint64_t second) override;

 private:
  struct watcher {
    std::weak_ptr<client_channel> conn;
    std::uint64_t session_id = 0;
  };
  struct topic_state {
    wire::topic_name name;
    std::optional<segment_layout> layout;
    std::map<std::pair<std::uint64_t, std::uint64_t>, watcher> watchers;  // by (connection, session)
    std::map<std::string, std::shared_ptr<subscription_coordinator>> coordinators;
  };
  struct namespace_watcher {
    std::weak_ptr<client_channel> conn;
    std::uint64_t watch_id = 0;
    std::string namespace_name;
    std::map<std::string, std::string> filters;
    std::set<std::string> topics;  // what the watcher was last told
  };
  using layout_change = std::function<result<segment_layout::change>(const segment_layout&)>;

  awaitable<void> do_watch_namespace(std::shared_ptr<client_channel> conn, proto::CommandWatchScalableTopics command);
  // The namespace's topics matching the filters.
  awaitable<result<std::set<std::string>>> matching(std::string namespace_name,
                                                    std::map<std::string, std::string> filters);
  // A topic was created or deleted in the namespace: diffs to its watchers.
  awaitable<void> namespace_changed(std::string namespace_name);
  awaitable<void> do_watch(std::shared_ptr<client_channel> conn, proto::CommandScalableTopicLookup command);
  awaitable<void> do_subscribe(std::shared_ptr<client_channel> conn, proto::CommandScalableTopicSubscribe command);
  awaitable<result<void>> do_create(wire::topic_name topic, int segments, std::map<std::string, std::string> props);
  awaitable<result<void>> do_delete(wire::topic_name topic);
  awaitable<result<void>> do_change(wire::topic_name topic, layout_change change);
  awaitable<result<void>> create_segments(const wire::topic_name& topic, const segment_layout& layout,
                                          const std::vector<std::uint64_t>& ids,
                                          const std::vector<std::string>& subscriptions);
  awaitable<result<std::vector<std::string>>> subscriptions_of(const wire::topic_name& topic,
                                                               const segment_layout& layout,
                                                               const std::vector<std::uint64_t>& parents);
  awaitable<result<void>> ensure_controller(const wire::topic_name& topic);
  // Re-reads the layout; pushes it to watchers and coordinators when it changed.
  awaitable<void> refresh(wire::topic_name topic);
  void push_layout(topic_state& state, const watcher& w);
  awaitable<bool> drained(std::string segment_topic, std::string subscription);
  topic_state& state_of(const wire::topic_name& topic);
  wire::topic_name segment_name(const wire::topic_name& topic, const segment_info& segment) const;

  scalable_service_deps _deps;
  const coordinator_settings _settings;
  scalable_store _store;
  std::optional<meta::session_id> _session;
  meta::listener_handle _listener;
  std::map<std::string, topic_state> _topics;                                                // by topic://... name
  std::map<std::pair<std::uint64_t, std::uint64_t>, namespace_watcher> _namespace_watchers;  // (connection, watch)
  bool _stopped = false;
};

// The scalable topic a lookup or subscribe names: topic://, or the persistent:// twin
// and short names of the same tenant/namespace/local name.
result<wire::topic_name> scalable_name(std::string_view text);

}  // namespace magnetar::broker::scalable
