// registered_bookie_directory: the bookies of a cluster as a ledger client sees
// them: those registered in the metadata store under /ledgers/available
// (upstream's layout; the readonly/ ones take no new ensembles), reached over
// the network by remote_bookie_clients made on first use.
//
// The list follows the store's children_changed notifications of
// /ledgers/available, so a bookie that dies (its ephemeral node goes with its
// session) leaves new ensembles, and one that starts joins them. client()
// serves any bookie id, registered or not: an old ledger's ensemble may name
// a bookie that is down now, and its calls then fail like any unreachable
// bookie's.
// Thread-safety: writable_bookies and client from any thread; start once.
#pragma once

#include "ledger/bookie_client.h"
#include "ledger/remote_bookie_client.h"
#include "meta/store.h"

#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

namespace magnetar::ledger {

class registered_bookie_directory final : public bookie_directory {
 public:
  // Connections live on `executor` (a shard); `defaults` gives their timeouts.
  registered_bookie_directory(meta::store& store, asio::any_io_executor executor, remote_bookie_options defaults = {});

  // Reads the registrations and follows their changes.
  awaitable<result<void>> start();

  std::vector<std::string> writable_bookies() const override;
  bookie_client* client(const std::string& bookie_id) override;

 private:
  awaitable<void> refresh(std::weak_ptr<bool> alive);

  meta::store& _store;
  asio::any_io_executor _executor;
  remote_bookie_options _defaults;
  mutable std::mutex _mutex;
  std::vector<std::string> _writable;
  std::map<std::string, std::unique_ptr<remote_bookie_client>> _clients;
  meta::listener_handle _changes;
  // Refreshes in flight check it after each wait: destroy the directory on its
  // executor (or after the store stopped) to rule out the last race.
  std::shared_ptr<bool> _alive = std::make_shared<bool>(true);
};

}  // namespace magnetar::ledger
