// broker_service: the broker. It accepts Pulsar protocol connections (round robin over
// the shards), owns the topic registry (topics and their admin), and runs the
// scalable-topic service; it is the broker_context its connections work in.
//
// The order of its parts, written once here: start() makes the scalable-topic service,
// links it to the registry, then accepts; stop() stops accepting, closes every
// connection, stops the scalable-topic service, unloads every shard's topics (cursors
// persisted, ledgers closed), and last waits for the connection objects to go (their
// coroutines use the broker to their end). Call both from outside the shards (main
// thread or a test), after the shards are running.
// Thread-safe: the connection list is under a mutex; the rest is the registry's.
#pragma once

#include "base/clock.h"
#include "base/result.h"
#include "broker/api/broker_config.h"
#include "broker/protocol/broker_context.h"
#include "broker/topic/topic_registry.h"
#include "io/gate.h"
#include "io/net.h"
#include "io/shard.h"
#include "ledger/ledger_client.h"
#include "meta/store.h"
#include "tls/server_context_source.h"

#include <atomic>
#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <random>
#include <string>

namespace magnetar::broker {

class access_control;
class connection;
class namespace_resources;
class replication_clients;
namespace scalable {
class scalable_service;
}

struct broker_deps {
  meta::store& store;
  // Namespaces and partitioned-topic metadata (checked at topic creation and lookup).
  namespace_resources& resources;
  ledger::ledger_client& ledgers;
  base::clock& clock;
  io::shard_set& shards;
  // In a cluster, which topics this broker serves and where lookups go (null: the
  // standalone, which serves every topic itself).
  topic_ownership* ownership = nullptr;
};

class broker_service final : public broker_context {
 public:
  broker_service(broker_config config, broker_deps deps);
  ~broker_service() override;
  broker_service(const broker_service&) = delete;
  broker_service& operator=(const broker_service&) = delete;

  // Binds brokerServicePort and brokerServicePortTls (those that are on) on bindAddress
  // and starts accepting.
  result<void> start();
  void stop();
  // The bound port (brokerServicePort, or the port picked for 0); 0 with it off.
  std::uint16_t port() const { return _port; }
  // The TLS port (brokerServicePortTls, or the one picked for 0); 0 without TLS.
  std::uint16_t tls_port() const { return _tls_port; }

  // The topics, and the topic_admin the REST layer is written against.
  topic_registry& topics() override { return _topics; }

  // broker_context
  const broker_config& config() const override { return _config; }
  base::clock& clock() override { return _deps.clock; }
  scalable::scalable_service& scalable() override { return *_scalable; }
  std::string service_url() const override;
  std::string service_url_tls() const override;
  topic_ownership* ownership() override { return _deps.ownership; }
  std::string new_producer_name() override;
  void connection_closed(std::uint64_t id) override;
  const auth::authenticator* authenticator() const override { return _authenticator.get(); }
  const access_control* access() const override { return _access.get(); }

 private:
  // Binds bindAddress:port; errc::not_allowed naming the address when it can't.
  result<std::unique_ptr<asio::ip::tcp::acceptor>> listen(std::uint16_t port);
  // `tls`: the server contexts of the TLS port's connections (null: plaintext).
  awaitable<void> accept_loop(asio::ip::tcp::acceptor& acceptor, tls::server_context_source* tls,
                              std::shared_ptr<io::gate::pass> held);
  awaitable<void> stop_accepting();
  void connection_opened(const std::shared_ptr<connection>& c);

  const broker_config _config;
  broker_deps _deps;
  topic_registry _topics;
  std::unique_ptr<asio::ip::tcp::acceptor> _acceptor;
  std::uint16_t _port = 0;
  std::unique_ptr<asio::ip::tcp::acceptor> _tls_acceptor;  // with brokerServicePortTls
  std::uint16_t _tls_port = 0;
  std::shared_ptr<tls::server_context_source> _tls_contexts;
  io::gate _accepting{"broker acceptor"};
  io::gate _connection_objects{"broker connections"};  // one pass per connection object
  std::atomic<std::uint64_t> _next_connection_id{1};
  std::atomic<std::uint64_t> _next_producer{0};
  std::atomic<std::uint64_t> _total_connections{0};
  std::mutex _connections_mutex;
  std::map<std::uint64_t, std::weak_ptr<connection>> _connections;
  std::unique_ptr<scalable::scalable_service> _scalable;
  std::unique_ptr<replication_clients> _replication_clients;
  std::unique_ptr<auth::authenticator> _authenticator;  // with authenticationEnabled
  std::unique_ptr<access_control> _access;              // with authorizationEnabled
  const std::uint32_t _instance = std::random_device()();
};

}  // namespace magnetar::broker
