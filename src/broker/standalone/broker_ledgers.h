// broker_ledgers: the ledger client a broker writes its managed ledgers through,
// and the storage behind it, chosen by bookkeeperMetadataServiceUri:
//   - empty: one embedded bookie under dataDir (bookie/journal-<n>/, bookie/ledgers/),
//     the standalone's way; ledger metadata in the broker's own metadata store;
//   - set: the bookies registered in that metadata service (upstream's
//     /ledgers/available), reached over the network; ledger metadata in that store
//     too, beside their registrations, where their auditor looks for it. It is the
//     broker's own store when both name the same ZooKeeper and chroot, else a
//     second session.
// open() and stop() on a thread that is none of the shards'.
#pragma once

#include "base/result.h"
#include "broker/api/broker_config.h"
#include "io/blocking_pool.h"
#include "io/shard.h"
#include "ledger/ledger_client.h"
#include "meta/store.h"

#include <memory>

namespace magnetar::broker {

class broker_ledgers {
 public:
  static result<std::unique_ptr<broker_ledgers>> open(const broker_config& config, meta::store& broker_store,
                                                      io::shard_set& shards, io::blocking_pool& pool);
  ~broker_ledgers();
  broker_ledgers(const broker_ledgers&) = delete;
  broker_ledgers& operator=(const broker_ledgers&) = delete;

  ledger::ledger_client& client() { return *_client; }
  // Flushes and closes the embedded bookie, or ends the bookies' session. Idempotent.
  void stop();

 private:
  struct parts;
  explicit broker_ledgers(io::shard_set& shards);

  io::shard_set& _shards;
  std::unique_ptr<parts> _parts;
  std::unique_ptr<ledger::ledger_client> _client;
};

}  // namespace magnetar::broker
