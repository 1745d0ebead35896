// replicator: one topic's geo-replication to one remote cluster (upstream's
// PersistentReplicator). It reads the topic's entries through a durable cursor,
// "pulsar.repl.<remote cluster>", and sends each one to the same topic in the remote
// cluster through a producer named "pulsar.repl.<this cluster>", as stored (key,
// properties, event and publish time, batches as batches) but marked replicated_from
// this cluster. Entries that came from another cluster are not sent on: with any number
// of clusters, nothing goes round in a loop.
//
// Nothing is lost or stored twice across broken links, dead brokers and moved topics:
// an entry is acknowledged on the cursor only once the remote cluster has receipted
// it; the producer sends again, in order, whatever was not receipted when it
// reconnects; a replicator that loses its producer for good (or the next owner of the
// topic, from the persisted cursor) starts again after the last acknowledged entry; and
// the remote topic drops what it has stored already, by the original producer's name
// and sequence ids (broker/topic/replicated_publish.cc).
//
// Event-driven on the topic's shard: pump() starts a read when the producer has room
// and entries are there, or a wait for the next entry. Receipts and the producer's
// arrival are posted back to the shard. At most max_in_flight entries go unreceipted.
#pragma once

#include "base/clock.h"
#include "base/result.h"
#include "broker/api/topic_admin.h"
#include "broker/replication/replication_clients.h"
#include "broker/topic/rate_meter.h"
#include "client/entry_producer.h"
#include "io/asio.h"
#include "io/gate.h"
#include "io/shard.h"
#include "mledger/managed_cursor.h"
#include "mledger/managed_ledger.h"
#include "wire/topic_name.h"

#include <atomic>
#include <chrono>
#include <cstdint>
#include <deque>
#include <memory>
#include <string>

namespace magnetar::broker {

struct replicator_settings {
  std::size_t max_in_flight = 1000;  // replicationProducerQueueSize
  std::size_t read_batch = 100;
  std::chrono::milliseconds initial_backoff{100};
  std::chrono::milliseconds max_backoff{10'000};
};

class replicator : public std::enable_shared_from_this<replicator> {
 public:
  replicator(wire::topic_name topic, std::string local_cluster, std::string remote_cluster,
             mledger::managed_ledger& ledger, io::shard& shard, replication_clients& clients, base::clock& clock,
             replicator_settings settings = {});
  ~replicator();

  static std::string cursor_name(const std::string& remote_cluster) { return "pulsar.repl." + remote_cluster; }

  // Opens (or creates, at the topic's end) the cursor and starts replicating. On the
  // topic's shard.
  awaitable<result<void>> start();
  // Stops sending and closes the producer; what was not receipted is sent again by
  // whoever replicates from the cursor next. Waits for a read in flight.
  awaitable<void> stop();

  const std::string& remote_cluster() const { return _remote; }
  replicator_stats stats() const;
  // Closes the rates' window (the topic's tick, about every second).
  void roll(base::clock::time_point now) { _out.roll(now); }

 private:
  struct in_flight {
    mledger::position at;
    std::uint64_t publish_time_ms = 0;
    std::uint64_t messages = 1;
    std::uint64_t bytes = 0;
  };

  static bool still_running(const std::weak_ptr<replicator>& weak);
  void pump();
  awaitable<void> read(std::shared_ptr<io::gate::pass> held);
  awaitable<void> wait_for_entries();
  // Sends the entry, or acknowledges it at once when it is not to be replicated.
  void forward(const mledger::entry& e);
  void connect();
  awaitable<void> connect_after(std::chrono::milliseconds delay, std::shared_ptr<io::gate::pass> held);
  std::chrono::milliseconds next_backoff();
  void connected(std::shared_ptr<client_detail::entry_producer> producer);
  void receipted(mledger::position at, std::uint64_t generation, const result<message_id>& r);
  // The producer failed for good: start again after the cursor's acknowledged entries.
  void restart(std::string_view why);

  const wire::topic_name _topic;
  const std::string _local;
  const std::string _remote;
  mledger::managed_ledger& _ledger;
  io::shard& _shard;
  replication_clients& _clients;
  base::clock& _clock;
  const replicator_settings _settings;
  io::gate _gate;

  mledger::managed_cursor* _cursor = nullptr;
  std::shared_ptr<client_detail::entry_producer> _producer;
  // Bumped whenever the producer is replaced: receipts of an older one are ignored.
  std::uint64_t _generation = 0;
  // Set on the shard, read by the client's threads too (still_running).
  std::atomic<bool> _stopping{false};
  bool _connecting = false;
  bool _reading = false;
  bool _waiting = false;
  std::chrono::milliseconds _backoff;
  std::deque<in_flight> _in_flight;
  // Publish time of the oldest entry not yet receipted when the producer was lost (the
  // replication delay while nothing is in flight).
  std::uint64_t _behind_since_ms = 0;
  rate_meter _out;  // receipted by the remote cluster
};

}  // namespace magnetar::broker
