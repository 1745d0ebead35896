#include "broker/node/broker_node.h"

#include "auth/client_credentials.h"
#include "broker/admin/admin_server.h"
#include "broker/api/errc.h"
#include "broker/broker_service.h"
#include "broker/cluster/bundle_ownership.h"
#include "broker/cluster/cluster_control.h"
#include "broker/cluster/load_manager.h"
#include "broker/namespace/namespace_resources.h"
#include "broker/standalone/broker_ledgers.h"
#include "io/block_on.h"
#include "io/blocking_pool.h"
#include "io/shard.h"
#include "meta/store_url.h"

#include <fmt/format.h>
#include <spdlog/spdlog.h>

namespace magnetar::broker {

result<std::string> bookies_of(const broker_config& config) {
  if (!config.bookkeeper_metadata_service_uri.empty()) return config.bookkeeper_metadata_service_uri;
  MAGNETAR_TRY(url, meta::parse_store_url(config.metadata_store_url));
  if (url.backend != meta::store_url::kind::zookeeper) {
    return fail(errc::invalid_request,
                fmt::format("a cluster's broker keeps its metadata in ZooKeeper: metadataStoreUrl=zk:host:port "
                            "(it is '{}')",
                            config.metadata_store_url));
  }
  return fmt::format("metadata-store:zk:{}{}/ledgers", url.servers, url.chroot);
}

struct broker_node::parts {
  explicit parts(unsigned shards) : shard_set(shards) {}
  io::shard_set shard_set;
  io::blocking_pool pool{4};
  std::unique_ptr<meta::store> store;
  // The configuration store the clusters of a geo-replicated deployment share; null
  // when it is the metadata store.
  std::unique_ptr<meta::store> configuration;
  meta::store& configuration_store() { return configuration ? *configuration : *store; }
  std::unique_ptr<broker_ledgers> ledgers;
  std::unique_ptr<namespace_resources> resources;
  std::unique_ptr<cluster::bundle_ownership> ownership;
  std::unique_ptr<cluster::cluster_control> control;
  std::unique_ptr<cluster::load_manager> load;
  std::unique_ptr<broker_service> broker;
  std::unique_ptr<admin::admin_server> admin;
};

broker_node::broker_node(broker_config config) : _config(std::move(config)) {}

broker_node::~broker_node() { stop(); }

result<void> broker_node::start() {
  MAGNETAR_TRY(bookies, bookies_of(_config));
  _config.bookkeeper_metadata_service_uri = bookies;
  const unsigned shards = _config.num_io_threads == 0 ? io::shard_set::default_count() : _config.num_io_threads;
  _parts = std::make_unique<parts>(shards);
  auto& p = *_parts;
  p.shard_set.start();
  _started = true;

  MAGNETAR_TRY(store, meta::make_store(_config.metadata_store_url,
                                       {.pool = &p.pool,
                                        .session_timeout = _config.metadata_store_session_timeout,
                                        .operation_timeout = _config.metadata_store_operation_timeout}));
  p.store = std::move(store);
  MAGNETAR_TRY(io::block_on(p.shard_set[0], p.store->start()));
  const auto& configuration_url = _config.configuration_metadata_store_url;
  if (!configuration_url.empty() && configuration_url != _config.metadata_store_url) {
    MAGNETAR_TRY(configuration,
                 meta::make_store(configuration_url, {.pool = &p.pool,
                                                      .session_timeout = _config.metadata_store_session_timeout,
                                                      .operation_timeout = _config.metadata_store_operation_timeout}));
    p.configuration = std::move(configuration);
    MAGNETAR_TRY(io::block_on(p.shard_set[0], p.configuration->start()));
  }
  p.resources = std::make_unique<namespace_resources>(*p.store, p.configuration_store(), _config.cluster_name);
  MAGNETAR_TRY(cluster, io::block_on(p.shard_set[0], p.resources->get_cluster(_config.cluster_name)));
  if (!cluster) {
    return fail(errc::not_allowed, fmt::format("cluster '{}' is not in the metadata store: run magnetar "
                                               "initialize-cluster-metadata --cluster {} first",
                                               _config.cluster_name, _config.cluster_name));
  }
  MAGNETAR_TRY(ledgers, broker_ledgers::open(_config, *p.store, p.shard_set, p.pool));
  p.ledgers = std::move(ledgers);

  p.ownership = std::make_unique<cluster::bundle_ownership>(
      *p.store, *p.resources, p.shard_set[0].executor(), _config.metadata_store_session_timeout,
      [this]() -> awaitable<void> {
        auto& q = *_parts;
        co_await q.broker->topics().unload_where([&](const wire::topic_name& t) { return !q.ownership->owns(t); });
      });
  p.broker = std::make_unique<broker_service>(
      _config,
      broker_deps{*p.store, *p.resources, p.ledgers->client(), base::system_clock(), p.shard_set, p.ownership.get()});
  MAGNETAR_TRY(p.broker->start());
  p.admin = std::make_unique<admin::admin_server>(_config, *p.store, p.configuration_store(), &p.broker->topics(),
                                                  p.shard_set[0]);
  auth::client_credentials credentials;
  if (!_config.broker_client_auth_plugin.empty() || !_config.broker_client_auth_params.empty()) {
    auto from_config =
        auth::client_credentials::from(_config.broker_client_auth_plugin, _config.broker_client_auth_params);
    if (!from_config)
      return fail(from_config.error().code(),
                  fmt::format("brokerClientAuthenticationParameters: {}", from_config.error().detail()));
    credentials = std::move(from_config).value();
    MAGNETAR_TRY(credentials.http_authorization());  // a token file that can't be read stops the start
  }
  p.control = std::make_unique<cluster::cluster_control>(
      *p.store, *p.ownership, p.pool, std::move(credentials),
      _config.broker_client_tls_enabled ? std::optional(_config.broker_client_tls) : std::nullopt);
  p.admin->serve_lookups(p.broker->service_url(), p.broker->service_url_tls(), p.ownership.get(), p.control.get());
  MAGNETAR_TRY(p.admin->start());
  const cluster::broker_identity self{
      .id = fmt::format("{}:{}", _config.advertised_address, web_port() != 0 ? web_port() : web_tls_port()),
      .broker_url = p.broker->service_url(),
      .http_url = web_service_url(),
      .listeners = _config.advertised_listeners,
      .broker_url_tls = p.broker->service_url_tls(),
      .http_url_tls = web_service_url_tls()};
  MAGNETAR_TRY(io::block_on(p.shard_set[0], p.ownership->start(self)));
  if (_config.load_balancer_enabled) {
    p.load = std::make_unique<cluster::load_manager>(
        *p.store, *p.ownership, p.broker->topics(),
        [&control = *p.control](std::string ns, std::string bundle) {
          return control.unload_bundle(std::move(ns), std::move(bundle));
        },
        p.shard_set[0].executor(),
        cluster::load_settings{.shedding_enabled = _config.load_balancer_shedding_enabled,
                               .report_interval = _config.load_balancer_report_interval,
                               .shedding_interval = _config.load_balancer_shedding_interval,
                               .grace_period = _config.load_balancer_shedding_grace_period,
                               .threshold_percentage = _config.load_balancer_threshold_percentage,
                               .history_percentage = _config.load_balancer_history_percentage});
    p.load->start();
  }
  spdlog::info("broker {} ready in cluster {}: {} {} (admin {} {})", self.id, _config.cluster_name, self.broker_url,
               self.broker_url_tls, self.http_url, self.http_url_tls);
  return success();
}

void broker_node::stop() {
  if (!_started) return;
  _started = false;
  auto& p = *_parts;
  // Bundles first, while everything else still runs: their topics close cleanly and
  // their clients look up the broker that takes them next.
  if (p.load) io::block_on(p.shard_set[0], p.load->stop());
  p.load.reset();
  if (p.ownership && p.broker) io::block_on(p.shard_set[0], p.ownership->stop());
  if (p.admin) io::block_on(p.shard_set[0], p.admin->stop());
  p.admin.reset();
  if (p.broker) p.broker->stop();
  p.broker.reset();
  p.control.reset();
  p.ownership.reset();
  p.resources.reset();
  if (p.ledgers) p.ledgers->stop();
  p.ledgers.reset();
  if (p.configuration) io::block_on(p.shard_set[0], p.configuration->stop());
  p.configuration.reset();
  if (p.store) io::block_on(p.shard_set[0], p.store->stop());
  p.store.reset();
  p.shard_set.stop();
  _parts.reset();
}

std::uint16_t broker_node::broker_port() const { return _parts && _parts->broker ? _parts->broker->port() : 0; }
std::uint16_t broker_node::web_port() const { return _parts && _parts->admin ? _parts->admin->port() : 0; }
std::uint16_t broker_node::broker_tls_port() const { return _parts && _parts->broker ? _parts->broker->tls_port() : 0; }
std::uint16_t broker_node::web_tls_port() const { return _parts && _parts->admin ? _parts->admin->tls_port() : 0; }
std::string broker_node::web_service_url() const {
  return web_port() == 0 ? "" : fmt::format("http://{}:{}", _config.advertised_address, web_port());
}
std::string broker_node::web_service_url_tls() const {
  return web_tls_port() == 0 ? "" : fmt::format("https://{}:{}", _config.advertised_address, web_tls_port());
}
std::string broker_node::service_url() const { return _parts && _parts->broker ? _parts->broker->service_url() : ""; }
std::string broker_node::service_url_tls() const {
  return _parts && _parts->broker ? _parts->broker->service_url_tls() : "";
}

}  // namespace magnetar::broker
