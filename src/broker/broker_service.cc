#include "broker/broker_service.h"

#include "base/log.h"
#include "broker/api/errc.h"
#include "broker/namespace/access_control.h"
#include "broker/namespace/namespace_resources.h"
#include "broker/protocol/connection.h"
#include "broker/replication/topic_replicators.h"
#include "broker/scalable/scalable_service.h"
#include "io/block_on.h"
#include "io/run_on.h"

#include <fmt/format.h>

namespace magnetar::broker {

broker_service::broker_service(broker_config config, broker_deps deps)
    : _config(std::move(config)),
      _deps(deps),
      _topics(_config,
              topic_registry_deps{deps.store, deps.resources, deps.ledgers, deps.clock, deps.shards, deps.ownership}) {}

broker_service::~broker_service() = default;

std::string broker_service::service_url() const {
  if (const auto* internal = internal_listener(_config.advertised_listeners, _config.internal_listener_name);
      internal != nullptr && !internal->broker_url.empty()) {
    return internal->broker_url;
  }
  if (!_acceptor) return {};
  return fmt::format("pulsar://{}:{}", _config.advertised_address, _port);
}

std::string broker_service::service_url_tls() const {
  if (const auto* internal = internal_listener(_config.advertised_listeners, _config.internal_listener_name);
      internal != nullptr && !internal->broker_url_tls.empty()) {
    return internal->broker_url_tls;
  }
  if (!_tls_acceptor) return {};
  return fmt::format("pulsar+ssl://{}:{}", _config.advertised_address, _tls_port);
}

result<std::unique_ptr<asio::ip::tcp::acceptor>> broker_service::listen(std::uint16_t port) {
  boost::system::error_code ec;
  auto address = asio::ip::make_address(_config.bind_address, ec);
  if (ec) return fail(errc::invalid_request, fmt::format("bindAddress '{}': {}", _config.bind_address, ec.message()));
  auto acceptor = std::make_unique<asio::ip::tcp::acceptor>(_deps.shards[0].context());
  const asio::ip::tcp::endpoint endpoint(address, port);
  acceptor->open(endpoint.protocol(), ec);
  if (!ec) acceptor->set_option(asio::socket_base::reuse_address(true), ec);
  if (!ec) acceptor->bind(endpoint, ec);
  if (!ec) acceptor->listen(asio::socket_base::max_listen_connections, ec);
  if (ec)
    return fail(errc::not_allowed, fmt::format("cannot listen on {}:{}: {}", _config.bind_address, port, ec.message()));
  return acceptor;
}

std::string broker_service::new_producer_name() {
  // The instance keeps names unique across restarts: a remote cluster deduplicates
  // replicated entries by their producer's name and sequence ids.
  return fmt::format("{}-{}-{:x}-{}", _config.cluster_name, _port, _instance, _next_producer.fetch_add(1));
}

// ---------------------------------------------------------------------------------------
// Accepting connections

result<void> broker_service::start() {
  auto& first = _deps.shards[0];
  if (_config.authentication_enabled) {
    auto made = auth::authenticator::create(_config.authentication);
    if (!made) return fail(errc::invalid_request, fmt::format("authentication: {}", made.error().message()));
    _authenticator = std::move(made).value();
  }
  if (_config.authorization_enabled) {
    _access = std::make_unique<access_control>(
        auth::authorization_settings{.super_user_roles = _config.super_user_roles,
                                     .allow_wildcards = _config.authorization_allow_wildcards},
        _deps.resources);
  }
  if (!_config.broker_service_port && !_config.broker_service_port_tls) {
    return fail(errc::invalid_request, "brokerServicePort and brokerServicePortTls are both off");
  }
  if (_config.broker_service_port_tls) {
    auto source = tls::server_context_source::create(_config.tls, _config.tls_cert_refresh_check);
    if (!source) return fail(errc::invalid_request, fmt::format("brokerServicePortTls: {}", source.error().detail()));
    _tls_contexts = std::move(source).value();
    MAGNETAR_TRY(acceptor, listen(*_config.broker_service_port_tls));
    _tls_acceptor = std::move(acceptor);
    _tls_port = _tls_acceptor->local_endpoint().port();
  }
  if (_config.broker_service_port) {
    MAGNETAR_TRY(acceptor, listen(*_config.broker_service_port));
    _acceptor = std::move(acceptor);
    _port = _acceptor->local_endpoint().port();
  }
  // What the scalable topics' layouts name as their controller: the plaintext URL, or
  // the TLS one on a TLS-only broker.
  const auto own_url = _acceptor ? service_url() : service_url_tls();
  _scalable = std::make_unique<scalable::scalable_service>(
      scalable::scalable_service_deps{_deps.store, _topics, _deps.clock, first, own_url, own_url,
                                      [this](std::string namespace_name) -> awaitable<result<bool>> {
                                        if (!_config.allow_auto_topic_creation) co_return false;
                                        co_return co_await _deps.resources.namespace_exists(namespace_name);
                                      }},
      scalable::coordinator_settings{_config.scalable_topic_consumer_session_grace_period,
                                     _config.scalable_topic_drain_check_initial,
                                     _config.scalable_topic_drain_check_max});
  _replication_clients = std::make_unique<replication_clients>(
      _deps.resources, _config.broker_client_auth_plugin, _config.broker_client_auth_params,
      _config.broker_client_tls_enabled ? std::optional(_config.broker_client_tls) : std::nullopt);
  _topics.attach(topic_registry_links{
      .scalable = _scalable.get(),
      .segment_drained = [this](const wire::topic_name& segment,
                                const std::string& subscription) { _scalable->segment_drained(segment, subscription); },
      .make_replication =
          [this](const wire::topic_name& topic, mledger::managed_ledger& ledger, io::shard& shard) {
            return std::make_unique<topic_replicators>(
                topic, _config.cluster_name, ledger, shard, *_replication_clients, _deps.clock,
                replicator_settings{.max_in_flight = _config.replication_producer_queue_size,
                                    .read_batch = _config.dispatcher_max_read_batch_size});
          },
      .connection_counts =
          [this] {
            std::lock_guard lock(_connections_mutex);
            return std::pair<std::uint64_t, std::uint64_t>(_connections.size(),
                                                           _total_connections.load(std::memory_order_relaxed));
          },
  });
  MAGNETAR_TRY(io::block_on(first, _scalable->start()));
  MAGNETAR_TRY(pass, _accepting.enter());
  auto held = std::make_shared<io::gate::pass>(std::move(pass));
  if (_acceptor) {
    io::spawn(first.executor(), [this, held]() { return accept_loop(*_acceptor, nullptr, held); });
    spdlog::info("broker serving the Pulsar protocol on {}:{} ({})", _config.bind_address, _port, service_url());
  }
  if (_tls_acceptor) {
    io::spawn(first.executor(), [this, held]() { return accept_loop(*_tls_acceptor, _tls_contexts.get(), held); });
    spdlog::info("broker serving the Pulsar protocol over TLS on {}:{} ({})", _config.bind_address, _tls_port,
                 service_url_tls());
  }
  return success();
}

awaitable<void> broker_service::accept_loop(asio::ip::tcp::acceptor& acceptor, tls::server_context_source* tls,
                                            std::shared_ptr<io::gate::pass> /*held*/) {
  unsigned next_shard = 0;
  for (;;) {
    auto& target = _deps.shards[next_shard++ % _deps.shards.size()];
    boost::system::error_code ec;
    auto socket = co_await acceptor.async_accept(target.context(), asio::redirect_error(asio::use_awaitable, ec));
    if (ec) {
      if (ec == asio::error::operation_aborted || !acceptor.is_open()) co_return;
      spdlog::warn("accept failed: {}", ec.message());
      continue;
    }
    auto alive = _connection_objects.enter();
    if (!alive) co_return;  // stopping: the socket closes as it goes
    socket.set_option(asio::ip::tcp::no_delay(true), ec);
    // The TLS context is taken per connection: a renewed certificate reaches new ones.
    auto conn = std::make_shared<connection>(*this, target, std::move(socket), _next_connection_id.fetch_add(1),
                                             std::move(alive).value(), tls ? tls->current() : nullptr);
    connection_opened(conn);
    asio::post(target.executor(), [conn] { conn->start(); });
  }
}

void broker_service::connection_opened(const std::shared_ptr<connection>& c) {
  std::lock_guard lock(_connections_mutex);
  _connections.emplace(c->id(), c);
  _total_connections.fetch_add(1, std::memory_order_relaxed);
}

void broker_service::connection_closed(std::uint64_t id) {
  if (_scalable) _scalable->connection_closed(id);
  std::lock_guard lock(_connections_mutex);
  _connections.erase(id);
}

void broker_service::stop() {
  if (_acceptor || _tls_acceptor) io::block_on(_deps.shards[0], stop_accepting());
  std::vector<std::shared_ptr<connection>> open;
  {
    std::lock_guard lock(_connections_mutex);
    for (auto& [id, weak] : _connections) {
      if (auto c = weak.lock()) open.push_back(std::move(c));
    }
  }
  for (auto& c : open) c->close();
  open.clear();  // the wait for the connections to go, below, must not be held up by these
  if (_scalable) io::block_on(_deps.shards[0], _scalable->stop());
  for (unsigned i = 0; i < _deps.shards.size(); ++i) {
    auto& s = _deps.shards[i];
    io::block_on(s, _topics.unload_shard(s));
  }
  // A closed connection's coroutines end on its shard a moment later, and use this
  // service until then: it must not go before they do (it did, now and then, in the
  // tests that restart a standalone: a read loop's last call found it freed).
  io::block_on(_deps.shards[0], _connection_objects.close());
  if (_replication_clients) _replication_clients->close();
}

awaitable<void> broker_service::stop_accepting() {
  boost::system::error_code ignored;
  if (_acceptor) _acceptor->close(ignored);
  if (_tls_acceptor) _tls_acceptor->close(ignored);
  co_await _accepting.close();
}

}  // namespace magnetar::broker
