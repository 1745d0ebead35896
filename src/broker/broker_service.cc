#include "broker/broker_service.h"

#include "broker/scalable/scalable_service.h"

#include "base/log.h"
#include "broker/admin/namespace_resources.h"
#include "broker/connection.h"
#include "broker/errc.h"
#include "broker/protocol_error.h"
#include "broker/scalable/scalable_service.h"
#include "broker/topic.h"
#include "io/block_on.h"
#include "io/run_on.h"
#include "mledger/metadata.h"

#include <fmt/format.h>

namespace magnetar::broker {

broker_service::broker_service(broker_config config, broker_deps deps)
    : _config(std::move(config)), _deps(deps), _topics(deps.shards.size()) {
  // managedLedgerCacheSizeMB is the broker's; each shard's topics share an equal part.
  const auto share = (_config.managed_ledger_cache_size_mb << 20) / deps.shards.size();
  for (unsigned i = 0; i < deps.shards.size(); ++i) {
    _cache_budgets.push_back(std::make_shared<mledger::entry_cache_budget>(share));
  }
}

broker_service::~broker_service() = default;

std::string broker_service::service_url() const {
  return fmt::format("pulsar://{}:{}", _config.advertised_address, _port);
}

io::shard& broker_service::owner_of(const wire::topic_name& name) {
  return _deps.shards.for_key(std::hash<std::string>{}(name.full()));
}

std::string broker_service::new_producer_name() {
  return fmt::format("{}-{}-{}", _config.cluster_name, _port, _next_producer.fetch_add(1));
}

// ---------------------------------------------------------------------------------------
// Accepting connections

result<void> broker_service::start() {
  auto& first = _deps.shards[0];
  boost::system::error_code ec;
  auto address = asio::ip::make_address(_config.bind_address, ec);
  if (ec) return fail(errc::invalid_request, fmt::format("bindAddress '{}': {}", _config.bind_address, ec.message()));
  _acceptor = std::make_unique<asio::ip::tcp::acceptor>(first.context());
  const asio::ip::tcp::endpoint endpoint(address, _config.broker_service_port);
  _acceptor->open(endpoint.protocol(), ec);
  if (!ec) _acceptor->set_option(asio::socket_base::reuse_address(true), ec);
  if (!ec) _acceptor->bind(endpoint, ec);
  if (!ec) _acceptor->listen(asio::socket_base::max_listen_connections, ec);
  if (ec) {
    return fail(errc::not_allowed,
                fmt::format("cannot listen on {}:{}: {}", _config.bind_address, _config.broker_service_port, ec.message()));
  }
  _port = _acceptor->local_endpoint().port();
  _scalable = std::make_unique<scalable::scalable_service>(
      scalable::scalable_service_deps{
          _deps.store, *this, _deps.clock, first, service_url(), service_url(),
          [this](std::string namespace_name) -> awaitable<result<bool>> {
            if (!_config.allow_auto_topic_creation) co_return false;
            co_return co_await _deps.resources.namespace_exists(namespace_name);
          }},
      scalable::coordinator_settings{_config.scalable_topic_consumer_session_grace_period,
                                     _config.scalable_topic_drain_check_initial,
                                     _config.scalable_topic_drain_check_max});
  MAGNETAR_TRY(io::block_on(first, _scalable->start()));
  MAGNETAR_TRY(pass, _accepting.enter());
  io::spawn(first.executor(), [this, held = std::make_shared<io::gate::pass>(std::move(pass))]() {
    return accept_loop(held);
  });
  spdlog::info("broker serving the Pulsar protocol on {}:{} ({})", _config.bind_address, _port, service_url());
  return success();
}

awaitable<void> broker_service::accept_loop(std::shared_ptr<io::gate::pass> /*held*/) {
  unsigned next_shard = 0;
  for (;;) {
    auto& target = _deps.shards[next_shard++ % _deps.shards.size()];
    boost::system::error_code ec;
    auto socket = co_await _acceptor->async_accept(target.context(), asio::redirect_error(asio::use_awaitable, ec));
    if (ec) {
      if (ec == asio::error::operation_aborted || !_acceptor->is_open()) co_return;
      spdlog::warn("accept failed: {}", ec.message());
      continue;
    }
    auto alive = _connection_objects.enter();
    if (!alive) co_return;  // stopping: the socket closes as it goes
    socket.set_option(asio::ip::tcp::no_delay(true), ec);
    auto conn = std::make_shared<connection>(*this, target, std::move(socket), _next_connection_id.fetch_add(1),
                                             std::move(alive).value());
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

scalable_admin* broker_service::scalable_topics() { return _scalable.get(); }

void broker_service::stop() {
  if (_acceptor) io::block_on(_deps.shards[0], stop_accepting());
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
    io::block_on(s, unload_all(s));
  }
  // A closed connection's coroutines end on its shard a moment later, and use this
  // service until then: it must not go before they do (it did, now and then, in the
  // tests that restart a standalone: a read loop's last call found it freed).
  io::block_on(_deps.shards[0], _connection_objects.close());
}

awaitable<void> broker_service::stop_accepting() {
  boost::system::error_code ignored;
  _acceptor->close(ignored);
  co_await _accepting.close();
}

awaitable<void> broker_service::unload_all(io::shard& s) {
  auto topics = std::exchange(_topics[s.id()].topics, {});
  for (auto& [name, t] : topics) {
    auto closed = co_await t->close();
    if (!closed) spdlog::warn("unloading {}: {}", name, closed.error());
  }
}

// ---------------------------------------------------------------------------------------
// Topics

mledger::managed_ledger_config broker_service::ledger_config(const io::shard& owner) const {
  mledger::managed_ledger_config c;
  // A topic's cache may take its shard's whole share; together they stay within it.
  c.cache.budget = _cache_budgets[owner.id()];
  c.cache.max_bytes = c.cache.budget->max_bytes();
  c.max_entries_per_ledger = _config.managed_ledger_max_entries_per_ledger;
  c.minimum_rollover_time = _config.managed_ledger_min_ledger_rollover_time;
  c.maximum_rollover_time = _config.managed_ledger_max_ledger_rollover_time;
  c.ensemble_size = _config.managed_ledger_default_ensemble_size;
  c.write_quorum = _config.managed_ledger_default_write_quorum;
  c.ack_quorum = _config.managed_ledger_default_ack_quorum;
  c.retention_time = std::chrono::minutes(_config.default_retention_time_minutes);
  c.retention_size_bytes = _config.default_retention_size_mb < 0 ? -1 : _config.default_retention_size_mb * 1024 * 1024;
  if (_config.default_retention_time_minutes < 0) c.retention_time = std::chrono::milliseconds(-1);
  return c;
}

awaitable<result<bool>> broker_service::topic_exists(const wire::topic_name& name) {
  co_return co_await _deps.store.exists(mledger::managed_ledger_path(name.persistence_name()));
}

awaitable<result<int>> broker_service::partitions_of(wire::topic_name name) {
  // A partition is itself a plain topic; only a partitioned topic's base name has some.
  // A segment of a scalable topic is never partitioned.
  if (name.partition() >= 0 || name.is_segment()) co_return 0;
  co_return co_await _deps.resources.partitioned_partitions(std::move(name));
}

awaitable<result<std::shared_ptr<topic>>> broker_service::get_topic_anywhere(wire::topic_name name, bool create) {
  auto& owner = owner_of(name);
  co_return co_await io::run_on(owner, [&]() { return get_topic(name, create); });
}

awaitable<result<std::shared_ptr<topic>>> broker_service::get_topic(wire::topic_name name, bool create) {
  auto& owner = owner_of(name);
  MAGNETAR_ASSERT(owner.is_current(), "get_topic({}) off its shard", name.full());
  auto& state = _topics[owner.id()];
  const auto key = name.full();
  for (;;) {
    if (auto it = state.topics.find(key); it != state.topics.end()) {
      if (!it->second->is_closing()) co_return it->second;
      state.topics.erase(it);
    }
    auto loading = state.loading.find(key);
    if (loading == state.loading.end()) break;
    auto signal = std::make_shared<io::oneshot_signal>(owner.executor());
    loading->second.push_back(signal);
    co_await signal->wait();
  }
  state.loading.emplace(key, std::vector<std::shared_ptr<io::oneshot_signal>>{});
  auto loaded = co_await load_topic(name, create);
  auto waiters = std::move(state.loading[key]);
  state.loading.erase(key);
  if (loaded) state.topics[key] = loaded.value();
  for (auto& w : waiters) w->fire();
  co_return loaded;
}

awaitable<result<std::shared_ptr<topic>>> broker_service::load_topic(const wire::topic_name& name, bool create) {
  if (name.is_scalable()) {
    co_return fail(errc::not_allowed, fmt::format("{} is a scalable topic: its producers and consumers attach to "
                                                  "its segments (the st API)",
                                                  name.full()));
  }
  if (!name.is_persistent()) {
    co_return fail(errc::not_allowed, fmt::format("{}: non-persistent topics are not supported", name.full()));
  }
  MAGNETAR_CO_TRY(exists, co_await topic_exists(name));
  if (!exists) {
    if (!create) co_return fail(errc::topic_not_found, fmt::format("Topic {} does not exist", name.full()));
    // Only the scalable topic's controller makes segments: a client still writing to a
    // deleted topic's segment must not bring it back.
    if (name.is_segment()) {
      co_return fail(errc::topic_not_found,
                     fmt::format("Segment {} does not exist (its scalable topic's controller creates segments)",
                                 name.full()));
    }
    if (!_config.allow_auto_topic_creation) {
      co_return fail(errc::topic_not_found,
                     fmt::format("Topic {} does not exist and allowAutoTopicCreation is off", name.full()));
    }
    MAGNETAR_CO_TRY(namespace_found, co_await _deps.resources.namespace_exists(name.namespace_name()));
    if (!namespace_found) {
      co_return fail(errc::namespace_not_found, fmt::format("Namespace {} does not exist", name.namespace_name()));
    }
  }
  auto& owner = owner_of(name);
  MAGNETAR_CO_TRY(ledger, co_await mledger::managed_ledger::open(name.persistence_name(), ledger_config(owner),
                                                                 {_deps.store, _deps.ledgers, _deps.clock}));
  auto t = std::make_shared<topic>(*this, name, owner, std::move(ledger));
  // Deduplication recovers before the first SEND is taken, as upstream's topic load
  // waits for it; a topic that cannot recover it does not serve (duplicates would pass).
  auto applied = co_await t->refresh_policies();
  if (!applied) {
    auto closed = co_await t->close();
    if (!closed) spdlog::warn("{}: closing after a failed load: {}", name.full(), closed.error());
    co_return fail(errc::service_not_ready,
                   fmt::format("{}: deduplication could not recover: {}", name.full(), message_of(applied.error())));
  }
  t->start();
  spdlog::info("loaded topic {}", name.full());
  co_return t;
}

}  // namespace magnetar::broker
