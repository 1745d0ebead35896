// topic_replication: a persistent topic's geo-replication as the topic sees it: the
// remote clusters its entries are copied to. broker/replication implements it (it
// needs the client library, which the topic layer does not); the broker service lends
// the topics a factory through topic_registry_links. Lives on the topic's shard.
#pragma once

#include "base/clock.h"
#include "broker/api/topic_admin.h"
#include "io/asio.h"
#include "io/shard.h"
#include "mledger/managed_ledger.h"
#include "wire/topic_name.h"

#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

namespace magnetar::broker {

class topic_replication {
 public:
  virtual ~topic_replication() = default;
  // The namespace's replication_clusters (this cluster among them or not): a
  // replicator starts for each remote cluster added, and stops, deleting its cursor,
  // for each removed.
  virtual awaitable<void> set_clusters(std::vector<std::string> clusters) = 0;
  // Stops every replicator, keeping the cursors (the topic unloads; its next owner
  // resumes from them). Before the managed ledger closes.
  virtual awaitable<void> close() = 0;
  // Adds each replicator's stats (out, backlog, delay, connected) by remote cluster.
  virtual void add_stats(std::map<std::string, replicator_stats>& out) const = 0;
  // Closes the rates' window (the topic's tick, about every second).
  virtual void roll(base::clock::time_point now) = 0;
};

using topic_replication_factory = std::function<std::unique_ptr<topic_replication>(
    const wire::topic_name& topic, mledger::managed_ledger& ledger, io::shard& shard)>;

}  // namespace magnetar::broker
