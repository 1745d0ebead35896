// topic_replicators: a topic's replicators, one per remote cluster of its namespace's
// replication_clusters (topic_replication, which the topic drives). A cluster taken
// out of the list loses its replicator and its cursor, as upstream's do; an unload
// keeps the cursors for the topic's next owner. On the topic's shard.
#pragma once

#include "broker/replication/replication_clients.h"
#include "broker/replication/replicator.h"
#include "broker/topic/topic_replication.h"

#include <map>
#include <memory>
#include <string>
#include <vector>

namespace magnetar::broker {

class topic_replicators final : public topic_replication {
 public:
  topic_replicators(wire::topic_name topic, std::string local_cluster, mledger::managed_ledger& ledger,
                    io::shard& shard, replication_clients& clients, base::clock& clock, replicator_settings settings);

  awaitable<void> set_clusters(std::vector<std::string> clusters) override;
  awaitable<void> close() override;
  void add_stats(std::map<std::string, replicator_stats>& out) const override;
  void roll(base::clock::time_point now) override;

 private:
  const wire::topic_name _topic;
  const std::string _local;
  mledger::managed_ledger& _ledger;
  io::shard& _shard;
  replication_clients& _clients;
  base::clock& _clock;
  const replicator_settings _settings;
  std::map<std::string, std::shared_ptr<replicator>> _replicators;
  bool _closed = false;
};

}  // namespace magnetar::broker
