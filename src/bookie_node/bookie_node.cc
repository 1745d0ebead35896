#include "bookie_node/bookie_node.h"

#include "bookie/bookie.h"
#include "bookie/bookie_server.h"
#include "bookie_node/cookie.h"
#include "io/block_on.h"
#include "io/blocking_pool.h"
#include "io/run_on.h"
#include "io/shard.h"
#include "meta/errc.h"
#include "meta/zookeeper_store.h"

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <spdlog/spdlog.h>

namespace magnetar::bookie_node {

namespace {

constexpr const char* available_path = "/ledgers/available";

}  // namespace

struct bookie_node::parts {
  explicit parts(unsigned shards) : shard_set(shards) {}
  io::shard_set shard_set;
  io::blocking_pool pool{4};
  std::unique_ptr<meta::zookeeper_store> store;
  std::unique_ptr<bookie::bookie> engine;
  std::unique_ptr<bookie::bookie_server> server;
  meta::listener_handle session_events;
  std::atomic<bool> stopping{false};
};

bookie_node::bookie_node(bookie_config config) : _config(std::move(config)), _id(_config.bookie_id()) {}

bookie_node::~bookie_node() { stop(); }

std::uint16_t bookie_node::port() const { return _parts && _parts->server ? _parts->server->port() : 0; }

namespace {

// Puts this bookie's ephemeral node on a new session of the store's.
awaitable<result<void>> register_bookie(meta::store& store, const std::string& id, bool read_only) {
  auto session = co_await store.open_session();
  if (!session) co_return fail(session.error());
  const auto path = fmt::format("{}/{}{}", available_path, read_only ? "readonly/" : "", id);
  const auto info = fmt::format(R"({{"bookieId": "{}", "readOnly": {}}})", id, read_only);
  // A node left by this bookie's previous (crashed) session may still be there
  // until that session times out: replace it.
  auto removed = co_await store.remove(path, std::nullopt);
  (void)removed;
  auto put = co_await store.put(path, info, -1, {.ephemeral = session.value()});
  if (!put) co_return fail(put.error());
  spdlog::info("bookie {} registered at {}", id, path);
  co_return success();
}

}  // namespace

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
  MAGNETAR_TRY(opened, bookie::bookie::open(options, p.shard_set, p.pool, base::system_clock()));
  p.engine = std::move(opened);
  p.engine->start();
  p.server = std::make_unique<bookie::bookie_server>(
      *p.engine, p.shard_set,
      bookie::bookie_server_options{
          .bind_address = _config.listening_address, .port = _config.bookie_port, .bookie_id = _id});
  MAGNETAR_TRY(p.server->start());

  MAGNETAR_TRY(io::block_on(p.shard_set[0], register_bookie(*p.store, _id, false)));
  // A lost session took the registration with it: register again on a new one.
  p.session_events = p.store->register_session_listener(p.shard_set[0].executor(), [this](meta::session_event e) {
    if (e != meta::session_event::session_lost || _parts->stopping.load()) return;
    io::spawn(_parts->shard_set[0].executor(), [this]() -> awaitable<void> {
      auto again = co_await register_bookie(*_parts->store, _id, _parts->server->read_only());
      if (!again) spdlog::error("bookie {}: registering again failed: {}", _id, again.error());
    });
  });
  spdlog::info("bookie {} ready (journals {}, ledgers {})", _id, fmt::join(_config.journal_directories, ","),
               _config.ledger_directories.front());
  return success();
}

void bookie_node::stop() {
  if (!_parts) return;
  auto& p = *_parts;
  p.stopping.store(true);
  p.session_events.reset();
  if (p.server) p.server->stop();
  if (p.engine) io::block_on(p.shard_set[0], p.engine->stop());
  // Closing the store closes its sessions: the registration goes at once.
  if (p.store) io::block_on(p.shard_set[0], p.store->stop());
  p.server.reset();
  p.engine.reset();
  p.store.reset();
  p.shard_set.stop();
  _parts.reset();
}

}  // namespace magnetar::bookie_node
