// partitioned_producer: a producer on a partitioned topic, made of one producer_impl per
// partition ("<topic>-partition-<i>") behind one handle, as upstream's
// PartitionedProducerImpl. A partition_router picks each message's partition; the ids
// sends complete with carry that partition's index.
//
// Partitions' producers start together at creation (upstream's default), or, with
// lazy_start_partitioned_producers, the router's first pick starts at creation and the
// others on their first message; sends to a partition still starting wait, in order, and
// fail with its start error if it can't start (the next send tries again).
// flush and close span every partition. The partition count is read once at creation.
//
// Threading: routing and the partitions' states are under `_mutex`; sends go to the
// partition's producer after it is released, so a blocking send (block_if_queue_full)
// blocks only its caller.
#pragma once

#include "client/partition_router.h"
#include "client/producer_base.h"
#include "client/producer_impl.h"

#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <utility>
#include <vector>

namespace magnetar::client_detail {

class partitioned_producer final : public producer_base, public std::enable_shared_from_this<partitioned_producer> {
 public:
  // `topic` is the partitioned topic's full name.
  partitioned_producer(std::shared_ptr<client_impl> client, std::string topic, unsigned partitions,
                       producer_config config, std::unique_ptr<partition_router> router);

  // Starts the partitions' producers (see above). Errors: the first partition's failure;
  // the others are closed then.
  awaitable<result<void>> start();

  void send_async(message m, send_callback done) override;
  void flush_async(std::function<void(result<void>)> done) override;
  awaitable<result<void>> close() override;
  void shutdown() override;

  const std::string& topic() const override { return _topic; }
  // The first started partition's producer name (the broker names each one).
  std::string producer_name() const override;
  // The highest among the partitions, -1 before any.
  std::int64_t last_sequence_id() const override;
  bool is_connected() const override;
  const std::shared_ptr<client_impl>& client() const override { return _client; }

  unsigned partitions() const { return static_cast<unsigned>(_partitions.size()); }

 private:
  enum class state { idle, starting, draining, started };
  struct partition {
    std::shared_ptr<producer_impl> producer;
    state st = state::idle;
    // Sends and flushes that came while the producer was starting, in arrival order.
    std::vector<std::pair<message, send_callback>> waiting;
    std::vector<std::function<void(result<void>)>> waiting_flushes;
  };

  void start_lazily_locked(unsigned index);
  awaitable<void> lazy_start(unsigned index);
  // Hands what waited to the started producer, in order, then marks it started.
  void drain(unsigned index);

  const std::shared_ptr<client_impl> _client;
  const std::string _topic;
  const producer_config _config;

  mutable std::mutex _mutex;
  std::unique_ptr<partition_router> _router;
  std::vector<partition> _partitions;
  bool _closed = false;
};

}  // namespace magnetar::client_detail
