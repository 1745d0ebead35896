// client_impl: what a client's producers and consumers share: the io threads (its own,
// or client_resources' shared with other clients), the
// connection pool, the lookup service, id generators, and the list of live producers
// and consumers that close() closes.
//
// Thread-safe. Owned by shared_ptr: the public client holds it, and so do its producers
// and consumers, so the io threads outlive everything that runs on them.
#pragma once

#include "base/result.h"
#include "client/batch_flusher.h"
#include "client/connection_pool.h"
#include "client/lookup.h"
#include "io/shard.h"
#include "magnetar/config.h"

#include <atomic>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

namespace magnetar::client_detail {

class producer_base;
class consumer_base;

class client_impl : public std::enable_shared_from_this<client_impl> {
 public:
  client_impl(client_config config, std::vector<broker_address> service);
  ~client_impl();

  const client_config& config() const { return _config; }
  connection_pool& pool() { return _pool; }
  lookup_service& lookup() { return _lookup; }
  io::shard& next_shard();
  // The flusher of the producers' batches that live on `home`, one of this client's io threads.
  batch_flusher& batch_flusher_of(const io::shard& home);
  // True on one of this client's io threads (where blocking would deadlock).
  bool on_io_thread() const;

  std::uint64_t next_request_id() { return _request_ids.fetch_add(1, std::memory_order_relaxed); }
  std::uint64_t next_producer_id() { return _producer_ids.fetch_add(1, std::memory_order_relaxed); }
  std::uint64_t next_consumer_id() { return _consumer_ids.fetch_add(1, std::memory_order_relaxed); }

  // A ready connection to the broker serving `topic` (lookup, then the pool).
  awaitable<result<std::shared_ptr<connection>>> connection_for(const std::string& topic, std::uint64_t key);

  // Runs `work` on an io thread and blocks the caller until it returns; refused on an
  // io thread (client_errc::invalid_argument), since the work could need that thread.
  template <class T>
  result<T> block_on(std::function<awaitable<result<T>>()> work);

  // A listener thread for a consumer's message listener (each in turn); the threads
  // start at the first call and stop at close().
  io::shard& next_listener_thread();

  void add(std::weak_ptr<producer_base> p);
  void add(std::weak_ptr<consumer_base> c);
  bool is_closed() const { return _closed.load(); }
  // Closes every producer and consumer, then the connections; stops the io threads when
  // the last reference goes.
  result<void> close();

 private:
  const client_config _config;
  // Shared with client_resources' other clients when the config names them; the last
  // owner stops the threads (running_shards.h).
  std::shared_ptr<io::shard_set> _shards;
  std::atomic<std::uint64_t> _request_ids{1};
  std::atomic<std::uint64_t> _producer_ids{0};
  std::atomic<std::uint64_t> _consumer_ids{0};
  std::atomic<unsigned> _next_shard{0};
  std::vector<std::shared_ptr<batch_flusher>> _batch_flushers;  // one per io thread, by shard id
  connection_pool _pool;
  lookup_service _lookup;
  std::atomic<bool> _closed{false};
  std::mutex _mutex;
  std::vector<std::weak_ptr<producer_base>> _producers;
  std::vector<std::weak_ptr<consumer_base>> _consumers;
  std::shared_ptr<io::shard_set> _listener_threads;  // set under _mutex
  unsigned _next_listener_thread = 0;
};

}  // namespace magnetar::client_detail

#include "client/client_impl_inl.h"
