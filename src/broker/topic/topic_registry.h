// topic_registry: the topics this broker serves, each on the shard its name hashes to,
// and the topic_admin the REST layer is written against.
//
// Topics load on first use: a producer or consumer creates the topic when auto-creation
// allows, a lookup or an admin read only loads what exists. Loads of one topic that race
// share one managed-ledger open. The registry knows nothing of connections or of the
// scalable-topic service above it: what it needs of them (a drained segment's
// notification, the scalable admin, the connection counts in the metrics) is attached
// by the broker service at start.
//
// Thread-safety: the per-shard topic maps are touched on their shards only; get_topic()
// must run on the topic's owning shard, the topic_admin calls hop there themselves.
// attach() is not synchronised: call it once, from broker_service::start(), before the
// broker accepts and before the admin server starts; unload_shard() each shard at stop.
// The config passed in must outlive the registry (the broker service owns both).
#pragma once

#include "base/clock.h"
#include "base/result.h"
#include "broker/api/broker_config.h"
#include "broker/api/topic_admin.h"
#include "broker/topic/topic_replication.h"
#include "io/oneshot_signal.h"
#include "io/shard.h"
#include "ledger/ledger_client.h"
#include "meta/store.h"
#include "mledger/entry_cache_budget.h"
#include "mledger/managed_ledger_config.h"
#include "wire/topic_name.h"

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

namespace magnetar::broker {

class namespace_resources;
class non_persistent_topic;
class topic_ownership;
class topic;

struct topic_registry_deps {
  meta::store& store;
  // Namespaces and partitioned-topic metadata (checked at topic creation and lookup).
  namespace_resources& resources;
  ledger::ledger_client& ledgers;
  base::clock& clock;
  io::shard_set& shards;
  // In a cluster, which topics this broker may serve (null: every topic, the standalone).
  topic_ownership* ownership = nullptr;
};

// What the layers above the registry lend it.
struct topic_registry_links {
  // Scalable topics' admin (null when none is served).
  scalable_admin* scalable = nullptr;
  // A segment:// topic's subscription has read everything of a sealed segment. Called on
  // the topic's shard.
  std::function<void(const wire::topic_name& segment, const std::string& subscription)> segment_drained;
  // Makes a persistent topic's geo-replication (null: the broker replicates nothing).
  topic_replication_factory make_replication;
  // Connections open now and opened since start, for metrics().
  std::function<std::pair<std::uint64_t, std::uint64_t>()> connection_counts;
};

class topic_registry final : public topic_admin {
 public:
  topic_registry(const broker_config& config, topic_registry_deps deps);
  ~topic_registry() override;
  topic_registry(const topic_registry&) = delete;
  topic_registry& operator=(const topic_registry&) = delete;

  void attach(topic_registry_links links) { _links = std::move(links); }
  // The topic's replication as the links make it; null without a factory.
  std::unique_ptr<topic_replication> make_replication(const wire::topic_name& topic, mledger::managed_ledger& ledger,
                                                      io::shard& shard) const {
    return _links.make_replication ? _links.make_replication(topic, ledger, shard) : nullptr;
  }

  const broker_config& config() const { return _config; }
  base::clock& clock() { return _deps.clock; }
  meta::store& store() { return _deps.store; }
  namespace_resources& resources() { return _deps.resources; }
  io::shard& owner_of(const wire::topic_name& name);

  // On the topic's owning shard only: the topic, loaded (and created, when `create` and
  // auto-creation allow) if needed.
  awaitable<result<std::shared_ptr<topic>>> get_topic(wire::topic_name name, bool create);
  // The same from any shard: hops to the owner and back.
  awaitable<result<std::shared_ptr<topic>>> get_topic_anywhere(wire::topic_name name, bool create);
  // Partitions of a partitioned topic, 0 for one that is not partitioned.
  awaitable<result<int>> partitions_of(wire::topic_name name);

  // Non-persistent topics (topic_registry_non_persistent.cc). On the topic's owning shard
  // only: the topic, created when `create` and auto-creation allow (nothing is stored, so
  // it exists while it is loaded). errc::topic_not_found otherwise.
  awaitable<result<std::shared_ptr<non_persistent_topic>>> get_non_persistent_topic(wire::topic_name name, bool create);
  // From any shard: the full names of the namespace's non-persistent topics that have
  // producers or subscriptions here (what upstream lists for a pattern subscription).
  awaitable<std::vector<std::string>> list_non_persistent_topics(std::string namespace_name) override;

  // On shard `s`: closes every topic it owns (cursors persisted, ledgers closed), after
  // the loads under way (a client's request racing the stop) have finished; later
  // requests get errc::service_not_ready.
  awaitable<void> unload_shard(io::shard& s);

  // For the topics' subscriptions (see topic_registry_links).
  void segment_drained(const wire::topic_name& segment, const std::string& subscription);

  // topic_admin
  scalable_admin* scalable_topics() override { return _links.scalable; }
  awaitable<result<void>> create_topic(wire::topic_name topic) override;
  awaitable<result<void>> delete_topic(wire::topic_name topic, bool force) override;
  awaitable<result<std::vector<std::string>>> list_topics(std::string namespace_name) override;
  awaitable<result<topic_stats>> stats(wire::topic_name topic) override;
  awaitable<result<topic_internal_stats>> internal_stats(wire::topic_name topic) override;
  awaitable<result<std::vector<std::string>>> list_subscriptions(wire::topic_name topic) override;
  awaitable<result<void>> create_subscription(wire::topic_name topic, std::string subscription,
                                              message_position start) override;
  awaitable<result<void>> delete_subscription(wire::topic_name topic, std::string subscription, bool force) override;
  awaitable<result<void>> reset_cursor(wire::topic_name topic, std::string subscription, message_position to) override;
  awaitable<result<void>> reset_cursor_to_time(wire::topic_name topic, std::string subscription,
                                               std::int64_t publish_time_ms) override;
  awaitable<result<void>> skip_messages(wire::topic_name topic, std::string subscription, std::uint64_t count) override;
  awaitable<result<void>> clear_backlog(wire::topic_name topic, std::string subscription) override;
  awaitable<result<message_position>> terminate_topic(wire::topic_name topic) override;
  awaitable<result<void>> unload_topic(wire::topic_name topic) override;
  awaitable<void> unload_namespace(std::string namespace_name) override;
  // Closes every loaded topic that `unload` picks (persistent and non-persistent).
  awaitable<void> unload_where(std::function<bool(const wire::topic_name&)> unload);
  awaitable<void> policies_changed(std::string namespace_name) override;
  awaitable<std::map<std::string, topic_stats>> all_stats() override;
  awaitable<broker_metrics> metrics() override;

 private:
  struct shard_topics {
    std::map<std::string, std::shared_ptr<topic>> topics;
    std::map<std::string, std::vector<std::shared_ptr<io::oneshot_signal>>> loading;
    std::map<std::string, std::shared_ptr<non_persistent_topic>> non_persistent;
    // Set by unload_shard(): no topic loads from then on.
    bool stopping = false;
  };
  // A partition past its partitioned topic's count is refused (errc::not_allowed).
  awaitable<result<void>> check_partition(const wire::topic_name& name);
  awaitable<result<topic_stats>> non_persistent_stats(wire::topic_name name);
  // Succeeds for one that is not loaded (nothing of it exists elsewhere).
  awaitable<result<void>> unload_non_persistent(wire::topic_name name);

  awaitable<result<std::shared_ptr<topic>>> load_topic(const wire::topic_name& name, bool create);
  awaitable<result<bool>> topic_exists(const wire::topic_name& name);
  mledger::managed_ledger_config ledger_config(const io::shard& owner) const;

  const broker_config& _config;
  topic_registry_deps _deps;
  topic_registry_links _links;
  std::vector<shard_topics> _topics;  // by shard id
  // By shard id; shared with the topics' caches, which may outlive the registry.
  std::vector<std::shared_ptr<mledger::entry_cache_budget>> _cache_budgets;
};

}  // namespace magnetar::broker
