#include "bookie_node/bookie_node.h"

#include "autorecovery/autorecovery_service.h"
#include "bookie/bookie.h"
#include "bookie/bookie_server.h"
#include "bookie_node/cookie.h"
#include "bookie_node/disk_monitor.h"
#include "bookie_node/registration.h"
#include "http/server.h"
#include "io/block_on.h"
#include "io/blocking_pool.h"
#include "io/run_on.h"
#include "io/shard.h"
#include "io/timer.h"
#include "ledger/ledger_client.h"
#include "ledger/registered_bookie_directory.h"
#include "meta/errc.h"
#include "meta/zookeeper_store.h"

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <spdlog/spdlog.h>

namespace magnetar::bookie_node {

struct bookie_node::parts {
  explicit parts(unsigned shards) : shard_set(shards) {}
  io::shard_set shard_set;
  io::blocking_pool pool{4};
  std::unique_ptr<meta::zookeeper_store> store;
  std::unique_ptr<bookie::bookie> engine;
  std::unique_ptr<bookie::bookie_server> server;
  std::unique_ptr<registration> registered;
  // Auto-recovery: a ledger client of its own over the registered bookies.
  std::unique_ptr<ledger::registered_bookie_directory> bookies;
  std::unique_ptr<ledger::ledger_client> ledgers;
  std::unique_ptr<autorecovery::autorecovery_service> autorecovery;
  std::unique_ptr<http::http_server> http;
  meta::listener_handle session_events;
  std::optional<io::timer> disk_timer;  // on shard 0
  io::gate watching{"disk monitor"};
  std::atomic<bool> stopping{false};
  // The disk monitor's state, on shard 0.
  std::uint64_t storage_failures_seen = 0;
  bool write_failed = false;
};

bookie_node::bookie_node(bookie_config config) : _config(std::move(config)), _id(_config.bookie_id()) {}

bookie_node::~bookie_node() { stop(); }

std::uint16_t bookie_node::port() const { return _parts && _parts->server ? _parts->server->port() : 0; }

result<void> bookie_node::start() {
  const unsigned shards = _config.num_io_threads == 0 ? io::shard_set::default_count() : _config.num_io_threads;
  _parts = std::make_unique<parts>(shards);
  auto& p = *_parts;
  p.shard_set.start();

  p.store = std::make_unique<meta::zookeeper_store>(
      meta::zookeeper_store::options{.servers = _config.zookeeper_servers,
                                     .chroot = _config.chroot,
                                     .session_timeout = _config.zookeeper_session_timeout});
  // ZooKeeper may come up after the bookie: keep trying, saying so.
  for (;;) {
    auto started = io::block_on(p.shard_set[0], p.store->start());
    if (started) break;
    if (started.error() != meta::errc::unavailable) return fail(started.error());
    spdlog::warn("bookie {}: {}; trying again", _id, started.error());
    p.store = std::make_unique<meta::zookeeper_store>(
        meta::zookeeper_store::options{.servers = _config.zookeeper_servers,
                                       .chroot = _config.chroot,
                                       .session_timeout = _config.zookeeper_session_timeout});
  }
  MAGNETAR_TRY(io::block_on(p.shard_set[0],
                            check_cookies(*p.store, _id, _config.journal_directories, _config.ledger_directories)));

  bookie::bookie_options options;
  options.journal_directories = _config.journal_directories;
  options.ledger_directory = _config.ledger_directories.front();
  options.journal.max_group_wait = _config.journal_max_group_wait;
  MAGNETAR_TRY(opened, bookie::bookie::open(options, p.shard_set, p.pool, base::system_clock()));
  p.engine = std::move(opened);
  p.engine->start();
  bookie::bookie_server_options server_options{
      .bind_address = _config.listening_address, .port = _config.bookie_port, .bookie_id = _id};
  if (_config.tls_enabled) {
    MAGNETAR_TRY(source, tls::server_context_source::create(_config.tls, _config.tls_cert_refresh));
    server_options.tls = std::move(source);
    server_options.require_tls = _config.tls.require_trusted_client_cert;
  }
  p.server = std::make_unique<bookie::bookie_server>(*p.engine, p.shard_set, std::move(server_options));
  MAGNETAR_TRY(p.server->start());

  p.http = std::make_unique<http::http_server>(
      p.shard_set[0],
      http::http_server::options{
          .address = _config.http_address.empty() ? _config.listening_address : _config.http_address,
          .port = _config.http_port,
          .server_name = "magnetar-bookie"},
      [this](http::incoming_request request) -> awaitable<http::http_response> {
        co_return answer_bookie_http(status(), request);
      });
  MAGNETAR_TRY(p.http->start());

  // Read-only from the start when a disk is already past the threshold.
  const bool read_only =
      next_read_only(false, measure_directories(), false,
                     {.full = _config.disk_usage_threshold, .low_water = _config.disk_usage_lwm_threshold});
  p.server->set_read_only(read_only);
  p.registered = std::make_unique<registration>(*p.store, _id);
  MAGNETAR_TRY(io::block_on(p.shard_set[0], p.registered->publish(read_only)));
  // A lost session took the registration with it: register again on a new one.
  p.session_events = p.store->register_session_listener(p.shard_set[0].executor(), [this](meta::session_event e) {
    if (e != meta::session_event::session_lost || _parts->stopping.load()) return;
    spdlog::warn("bookie {}: its metadata store session expired; registering again on a new one", _id);
    io::spawn(_parts->shard_set[0].executor(), [this]() -> awaitable<void> {
      auto again = co_await _parts->registered->publish(_parts->server->read_only());
      if (!again) spdlog::error("bookie {}: registering again failed: {}", _id, again.error());
    });
  });
  if (_config.auto_recovery) {
    MAGNETAR_TRY(start_autorecovery());
  }
  p.disk_timer.emplace(p.shard_set[0].executor(), base::system_clock());
  MAGNETAR_TRY(watcher, p.watching.enter());
  io::spawn(p.shard_set[0].executor(),
            [this, held = std::make_shared<io::gate::pass>(std::move(watcher))]() { return watch_disks(held); });
  spdlog::info("bookie {} ready (journals {}, ledgers {})", _id, fmt::join(_config.journal_directories, ","),
               _config.ledger_directories.front());
  return success();
}

result<void> bookie_node::start_autorecovery() {
  auto& p = *_parts;
  // Its calls to other bookies present its own certificate when they take TLS.
  ledger::remote_bookie_options to_bookies;
  if (_config.tls_enabled) {
    to_bookies.tls = tls::client_settings{.trust_certs_file = _config.tls.trust_certs_file,
                                          .certificate_file = _config.tls.certificate_file,
                                          .key_file = _config.tls.key_file};
  }
  p.bookies =
      std::make_unique<ledger::registered_bookie_directory>(*p.store, p.shard_set[0].executor(), std::move(to_bookies));
  MAGNETAR_TRY(io::block_on(p.shard_set[0], p.bookies->start()));
  p.ledgers = std::make_unique<ledger::ledger_client>(*p.store, *p.bookies, base::system_clock());
  p.autorecovery = std::make_unique<autorecovery::autorecovery_service>(
      *p.store, *p.ledgers, *p.bookies, _id, p.shard_set[0].executor(), base::system_clock(),
      autorecovery::autorecovery_options{.lost_bookie_delay = _config.lost_bookie_recovery_delay,
                                         .periodic_check_interval = _config.auditor_periodic_check_interval,
                                         .replication = {.open_ledger_grace = _config.open_ledger_grace}});
  return p.autorecovery->start();
}

std::uint16_t bookie_node::http_port() const { return _parts && _parts->http ? _parts->http->port() : 0; }

std::vector<directory_usage> bookie_node::measure_directories() const {
  std::vector<directory_usage> out;
  auto paths = _config.journal_directories;
  paths.insert(paths.end(), _config.ledger_directories.begin(), _config.ledger_directories.end());
  for (const auto& path : paths) {
    auto measured = measure_directory(path);
    if (measured) {
      out.push_back(std::move(measured).value());
    } else {
      spdlog::warn("bookie {}: {}", _id, measured.error());
    }
  }
  return out;
}

bookie_status bookie_node::status() const {
  auto& p = *_parts;
  return bookie_status{.id = _id,
                       .read_only = p.server->read_only(),
                       .shutting_down = p.stopping.load(),
                       .engine = p.engine->stats(),
                       .server = p.server->stats(),
                       .directories = measure_directories(),
                       .disk_usage_threshold = _config.disk_usage_threshold};
}

awaitable<void> bookie_node::watch_disks(std::shared_ptr<io::gate::pass> /*held*/) {
  auto& p = *_parts;
  while (!p.stopping.load()) {
    if (!co_await p.disk_timer->wait_for(_config.disk_check_interval)) co_return;  // cancelled: stopping
    const auto failures = p.server->stats().storage_failures;
    if (failures > p.storage_failures_seen && !p.write_failed) {
      spdlog::error("bookie {}: {} adds failed for want of a writable disk or journal; read-only until restarted", _id,
                    failures - p.storage_failures_seen);
      p.write_failed = true;
    }
    p.storage_failures_seen = failures;
    const auto directories = measure_directories();
    const bool was = p.server->read_only();
    const bool now =
        next_read_only(was, directories, p.write_failed,
                       {.full = _config.disk_usage_threshold, .low_water = _config.disk_usage_lwm_threshold});
    if (now == was) continue;
    for (const auto& d : directories) spdlog::info("bookie {}: {} is {:.1f}% used", _id, d.path, d.usage() * 100);
    spdlog::warn("bookie {}: now {}", _id, now ? "read-only (reads still served)" : "writable again");
    p.server->set_read_only(now);
    auto published = co_await p.registered->publish(now);
    if (!published)
      spdlog::error("bookie {}: registering as {}: {}", _id, now ? "read-only" : "writable", published.error());
  }
}

void bookie_node::stop() {
  if (!_parts) return;
  auto& p = *_parts;
  p.stopping.store(true);
  p.session_events.reset();
  if (p.disk_timer) {
    io::block_on(p.shard_set[0], [&]() -> awaitable<void> {
      p.disk_timer->cancel();
      co_await p.watching.close();
    }());
  }
  if (p.http) io::block_on(p.shard_set[0], p.http->stop());
  if (p.autorecovery) p.autorecovery->stop();
  if (p.server) p.server->stop();
  if (p.engine) io::block_on(p.shard_set[0], p.engine->stop());
  // Closing the store closes its sessions: the registration goes at once.
  if (p.store) io::block_on(p.shard_set[0], p.store->stop());
  p.http.reset();
  p.autorecovery.reset();
  p.ledgers.reset();
  p.bookies.reset();
  p.server.reset();
  p.engine.reset();
  p.registered.reset();
  p.store.reset();
  p.shard_set.stop();
  _parts.reset();
}

}  // namespace magnetar::bookie_node
