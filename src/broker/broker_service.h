// broker_service: the broker. It accepts Pulsar protocol connections, owns the topics
// this process serves (each on the shard its name hashes to), answers lookups, and
// implements topic_admin for the REST layer.
//
// Topics load on first use: a producer or consumer creates the topic when auto-creation
// allows, a lookup or an admin read only loads what exists. Loads of one topic that race
// share one managed-ledger open.
//
// Lifecycle: start() binds and begins accepting; stop() stops accepting, closes every
// connection and unloads every topic (cursors persisted, ledgers closed). Call both from
// outside the shards (main thread or a test), after the shards are running.
// Thread-safe: the per-shard topic maps are touched on their shards only.
#pragma once

#include "base/clock.h"
#include "base/result.h"
#include "broker/broker_config.h"
#include "broker/topic_admin.h"
#include "io/net.h"
#include "io/gate.h"
#include "io/oneshot_signal.h"
#include "io/shard.h"
#include "ledger/ledger_client.h"
#include "meta/store.h"
#include "mledger/entry_cache_budget.h"
#include "mledger/managed_ledger_config.h"
#include "wire/topic_name.h"

#include <atomic>
#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

namespace magnetar::broker {

class connection;
class topic;
namespace scalable {
class scalable_service;
}
namespace admin {
class namespace_resources;
}

struct broker_deps {
  meta::store& store;
  // Namespaces and partitioned-topic metadata (checked at topic creation and lookup).
  admin::namespace_resources& resources;
  ledger::ledger_client& ledgers;
  base::clock& clock;
  io::shard_set& shards;
};

class broker_service final : public topic_admin {
 public:
  broker_service(broker_config config, broker_deps deps);
  ~broker_service() override;
  broker_service(const broker_service&) = delete;
  broker_service& operator=(const broker_service&) = delete;

  // Binds brokerServicePort on bindAddress and starts accepting.
  result<void> start();
  void stop();
  // The bound port (brokerServicePort, or the port picked for 0).
  std::uint16_t port() const { return _port; }
  // What lookups answer: pulsar://<advertisedAddress>:<port>.
  std::string service_url() const;

  const broker_config& config() const { return _config; }
  base::clock& clock() { return _deps.clock; }
  meta::store& store() { return _deps.store; }
  admin::namespace_resources& resources() { return _deps.resources; }
  io::shard& owner_of(const wire::topic_name& name);

  // On the topic's owning shard only: the topic, loaded (and created, when `create` and
  // auto-creation allow) if needed.
  awaitable<result<std::shared_ptr<topic>>> get_topic(wire::topic_name name, bool create);
  // The same from any shard: hops to the owner and back.
  awaitable<result<std::shared_ptr<topic>>> get_topic_anywhere(wire::topic_name name, bool create);

  // Partitions of a partitioned topic, 0 for one that is not partitioned.
  awaitable<result<int>> partitions_of(wire::topic_name name);
  std::string new_producer_name();

  // Scalable topics (topic://): layouts, DAG watches, stream-consumer coordinators.
  // Exists between start() and stop().
  scalable::scalable_service& scalable() { return *_scalable; }

  // Connections register so that stop() can close them and metrics can count them.
  void connection_opened(const std::shared_ptr<connection>& c);
  void connection_closed(std::uint64_t id);

  // topic_admin
  scalable_admin* scalable_topics() override;
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
  awaitable<void> policies_changed(std::string namespace_name) override;
  awaitable<std::map<std::string, topic_stats>> all_stats() override;
  awaitable<broker_metrics> metrics() override;

 private:
  struct shard_topics {
    std::map<std::string, std::shared_ptr<topic>> topics;
    std::map<std::string, std::vector<std::shared_ptr<io::oneshot_signal>>> loading;
  };

  awaitable<result<std::shared_ptr<topic>>> load_topic(const wire::topic_name& name, bool create);
  awaitable<result<bool>> topic_exists(const wire::topic_name& name);
  mledger::managed_ledger_config ledger_config(const io::shard& owner) const;
  awaitable<void> accept_loop(std::shared_ptr<io::gate::pass> held);
  awaitable<void> stop_accepting();
  awaitable<void> unload_all(io::shard& s);

  const broker_config _config;
  broker_deps _deps;
  std::vector<shard_topics> _topics;  // by shard id
  // By shard id; shared with the topics' caches, which may outlive the service.
  std::vector<std::shared_ptr<mledger::entry_cache_budget>> _cache_budgets;
  std::unique_ptr<asio::ip::tcp::acceptor> _acceptor;
  std::uint16_t _port = 0;
  io::gate _accepting{"broker acceptor"};
  io::gate _connection_objects{"broker connections"};  // one pass per connection object
  std::atomic<std::uint64_t> _next_connection_id{1};
  std::atomic<std::uint64_t> _next_producer{0};
  std::atomic<std::uint64_t> _total_connections{0};
  std::mutex _connections_mutex;
  std::map<std::uint64_t, std::weak_ptr<connection>> _connections;
  std::unique_ptr<scalable::scalable_service> _scalable;
};

}  // namespace magnetar::broker
