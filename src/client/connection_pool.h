// connection_pool: the client's connections, keyed by the logical broker address (plus
// the physical one when going through a proxy), max_connections_per_broker per broker.
//
// get() hands out a ready connection, connecting first when there is none or the one
// there has closed; callers that ask while a connection is being made wait for the same
// one. New connections go to the client's io threads in turn.
// Thread-safe.
#pragma once

#include "base/result.h"
#include "client/connection.h"
#include "client/service_url.h"
#include "io/shard.h"
#include "magnetar/config.h"

#include <map>
#include <memory>
#include <mutex>
#include <string>

namespace magnetar::client_detail {

class connection_pool {
 public:
  connection_pool(io::shard_set& shards, const client_config& config);

  // `key` picks one of the broker's connections (a producer's or consumer's id).
  // Errors: connect_error, timeout, already_closed after close_all().
  awaitable<result<std::shared_ptr<connection>>> get(broker_address logical, broker_address physical,
                                                     std::uint64_t key = 0);
  // A connection of its own for one owner (not shared with other producers and
  // consumers), so that closing it tells the broker the owner left: a stream consumer's
  // registration with a scalable topic's controller ends only when its connection does.
  // release() closes it (and leaves a connection from get() open); close_all() too.
  awaitable<result<std::shared_ptr<connection>>> get_dedicated(broker_address address, std::uint64_t owner);
  void release(const std::shared_ptr<connection>& c);
  // Closes every connection; get() fails from then on.
  void close_all();

 private:
  io::shard_set& _shards;
  const client_config _config;
  std::mutex _mutex;
  bool _closed = false;
  unsigned _next_shard = 0;
  std::map<std::string, std::shared_ptr<connection>> _connections;
  std::map<std::uint64_t, std::shared_ptr<connection>> _dedicated;  // by owner
};

}  // namespace magnetar::client_detail
