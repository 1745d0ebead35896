#include "broker/standalone/broker_ledgers.h"

#include "bookie/bookie.h"
#include "io/block_on.h"
#include "ledger/local_bookie_client.h"
#include "ledger/registered_bookie_directory.h"
#include "meta/store_url.h"
#include "meta/zookeeper_store.h"

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <spdlog/spdlog.h>

#include <filesystem>

namespace magnetar::broker {

namespace {
// Two journals: two fdatasync streams overlap on this class of disk (issue 3's figures).
constexpr int journal_count = 2;
}  // namespace

struct broker_ledgers::parts {
  // Embedded.
  std::unique_ptr<bookie::bookie> bookie;
  std::unique_ptr<ledger::static_bookie_directory> embedded;
  // Networked.
  std::unique_ptr<meta::store> own_store;  // when the bookies' store is not the broker's
  std::unique_ptr<ledger::registered_bookie_directory> registered;
};

broker_ledgers::broker_ledgers(io::shard_set& shards) : _shards(shards), _parts(std::make_unique<parts>()) {}

broker_ledgers::~broker_ledgers() { stop(); }

result<std::unique_ptr<broker_ledgers>> broker_ledgers::open(const broker_config& config, meta::store& broker_store,
                                                             io::shard_set& shards, io::blocking_pool& pool) {
  std::unique_ptr<broker_ledgers> out(new broker_ledgers(shards));
  auto& p = *out->_parts;
  if (config.bookkeeper_metadata_service_uri.empty()) {
    const std::filesystem::path data = config.data_dir;
    bookie::bookie_options options;
    for (int i = 0; i < journal_count; ++i) {
      options.journal_directories.push_back((data / "bookie" / fmt::format("journal-{}", i)).string());
    }
    options.ledger_directory = (data / "bookie" / "ledgers").string();
    options.checkpoint_interval = config.bookie_checkpoint_interval;
    options.journal.max_group_wait = config.journal_max_group_wait;
    MAGNETAR_TRY(opened, bookie::bookie::open(options, shards, pool, base::system_clock()));
    p.bookie = std::move(opened);
    p.bookie->start();
    p.embedded = std::make_unique<ledger::static_bookie_directory>();
    p.embedded->add("standalone-bookie", std::make_unique<ledger::local_bookie_client>(*p.bookie));
    out->_client = std::make_unique<ledger::ledger_client>(broker_store, *p.embedded, base::system_clock());
    return out;
  }

  MAGNETAR_TRY(bookies_at, meta::parse_metadata_service_uri(config.bookkeeper_metadata_service_uri));
  MAGNETAR_TRY(broker_at, meta::parse_store_url(config.metadata_store_url));
  meta::store* store = &broker_store;
  if (broker_at.backend != bookies_at.backend || broker_at.servers != bookies_at.servers ||
      broker_at.chroot != bookies_at.chroot) {
    p.own_store = std::make_unique<meta::zookeeper_store>(
        meta::zookeeper_store::options{.servers = bookies_at.servers,
                                       .chroot = bookies_at.chroot,
                                       .session_timeout = config.metadata_store_session_timeout,
                                       .operation_timeout = config.metadata_store_operation_timeout});
    MAGNETAR_TRY(io::block_on(shards[0], p.own_store->start()));
    store = p.own_store.get();
  }
  ledger::remote_bookie_options to_bookies;
  if (config.bookkeeper_tls_enabled) to_bookies.tls = config.bookkeeper_tls;
  p.registered = std::make_unique<ledger::registered_bookie_directory>(*store, shards[0].executor(), to_bookies);
  MAGNETAR_TRY(io::block_on(shards[0], p.registered->start()));
  const auto writable = p.registered->writable_bookies();
  spdlog::info("ledgers on the bookies registered at {}: {} writable now ({}), E/W/A {}/{}/{}",
               config.bookkeeper_metadata_service_uri, writable.size(), fmt::join(writable, ", "),
               config.managed_ledger_default_ensemble_size, config.managed_ledger_default_write_quorum,
               config.managed_ledger_default_ack_quorum);
  out->_client = std::make_unique<ledger::ledger_client>(*store, *p.registered, base::system_clock());
  return out;
}

void broker_ledgers::stop() {
  if (!_parts) return;
  auto& p = *_parts;
  _client.reset();
  p.embedded.reset();
  if (p.bookie) io::block_on(_shards[0], p.bookie->stop());
  p.bookie.reset();
  // The directory's refreshes run on shard 0: destroy it there (see its header).
  if (p.registered)
    io::block_on(_shards[0], [&]() -> awaitable<void> {
      p.registered.reset();
      co_return;
    }());
  if (p.own_store) io::block_on(_shards[0], p.own_store->stop());
  p.own_store.reset();
  _parts.reset();
}

}  // namespace magnetar::broker
