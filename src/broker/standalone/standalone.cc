#include "broker/standalone/standalone.h"

#include "broker/admin/admin_server.h"
#include "broker/api/errc.h"
#include "broker/broker_service.h"
#include "broker/namespace/namespace_resources.h"
#include "broker/standalone/broker_ledgers.h"
#include "io/block_on.h"
#include "io/blocking_pool.h"
#include "io/shard.h"
#include "meta/store_url.h"

#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include <filesystem>

namespace magnetar::broker {

struct standalone::parts {
  explicit parts(unsigned shards) : shard_set(shards) {}
  io::shard_set shard_set;
  io::blocking_pool pool{4};
  std::unique_ptr<meta::store> store;
  std::unique_ptr<broker_ledgers> ledgers;
  std::unique_ptr<namespace_resources> resources;
  std::unique_ptr<broker_service> broker;
  std::unique_ptr<admin::admin_server> admin;
};

standalone::standalone(broker_config config) : _config(std::move(config)) {}

standalone::~standalone() { stop(); }

result<void> standalone::start() {
  const std::filesystem::path data = _config.data_dir;
  std::error_code ec;
  std::filesystem::create_directories(data, ec);
  if (ec) return fail(errc::not_allowed, fmt::format("dataDir {}: {}", data.string(), ec.message()));
  if (!_config.journal_sync_data) {
    spdlog::warn("journalSyncData=false is ignored: magnetar acknowledges an entry only once it is synced");
  }

  const unsigned shards = _config.num_io_threads == 0 ? io::shard_set::default_count() : _config.num_io_threads;
  _parts = std::make_unique<parts>(shards);
  auto& p = *_parts;
  p.shard_set.start();
  _started = true;

  MAGNETAR_TRY(store, meta::make_store(_config.metadata_store_url,
                                       {.default_directory = (data / "metadata").string(),
                                        .pool = &p.pool,
                                        .session_timeout = _config.metadata_store_session_timeout,
                                        .operation_timeout = _config.metadata_store_operation_timeout}));
  p.store = std::move(store);
  MAGNETAR_TRY(io::block_on(p.shard_set[0], p.store->start()));

  MAGNETAR_TRY(ledgers, broker_ledgers::open(_config, *p.store, p.shard_set, p.pool));
  p.ledgers = std::move(ledgers);

  p.resources = std::make_unique<namespace_resources>(*p.store, _config.cluster_name);
  p.broker = std::make_unique<broker_service>(
      _config, broker_deps{*p.store, *p.resources, p.ledgers->client(), base::system_clock(), p.shard_set});
  MAGNETAR_TRY(p.broker->start());
  p.admin = std::make_unique<admin::admin_server>(_config, *p.store, &p.broker->topics(), p.shard_set[0]);
  p.admin->serve_lookups(p.broker->service_url(), p.broker->service_url_tls());
  MAGNETAR_TRY(p.admin->start());
  // The cluster, tenant `public` and namespace `public/default`, as a Pulsar standalone
  // has them from its first start.
  MAGNETAR_TRY(
      io::block_on(p.shard_set[0], p.resources->ensure_defaults(web_service_url(), p.broker->service_url(),
                                                                web_service_url_tls(), p.broker->service_url_tls())));
  spdlog::info("standalone ready: {} {} (admin {} {})", p.broker->service_url(), p.broker->service_url_tls(),
               web_service_url(), web_service_url_tls());
  return success();
}

void standalone::stop() {
  if (!_started) return;
  _started = false;
  auto& p = *_parts;
  if (p.admin) io::block_on(p.shard_set[0], p.admin->stop());
  p.admin.reset();
  if (p.broker) p.broker->stop();
  p.broker.reset();
  p.resources.reset();
  if (p.ledgers) p.ledgers->stop();
  p.ledgers.reset();
  if (p.store) io::block_on(p.shard_set[0], p.store->stop());
  p.store.reset();
  p.shard_set.stop();
  _parts.reset();
}

std::uint16_t standalone::broker_port() const { return _parts && _parts->broker ? _parts->broker->port() : 0; }
std::uint16_t standalone::broker_tls_port() const { return _parts && _parts->broker ? _parts->broker->tls_port() : 0; }
std::uint16_t standalone::web_port() const { return _parts && _parts->admin ? _parts->admin->port() : 0; }
std::uint16_t standalone::web_tls_port() const { return _parts && _parts->admin ? _parts->admin->tls_port() : 0; }
std::string standalone::web_service_url() const {
  return web_port() == 0 ? "" : fmt::format("http://{}:{}", _config.advertised_address, web_port());
}
std::string standalone::web_service_url_tls() const {
  return web_tls_port() == 0 ? "" : fmt::format("https://{}:{}", _config.advertised_address, web_tls_port());
}
std::string standalone::service_url() const { return _parts && _parts->broker ? _parts->broker->service_url() : ""; }

}  // namespace magnetar::broker
