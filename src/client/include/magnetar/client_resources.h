// client_resources: io threads that several clients share, as upstream's
// PulsarClientSharedResources (PIP-234) does. A process with many clients (a fleet of
// gateways, the pods of several applications) otherwise runs threads per client, and on
// a small machine their wake-ups cost more than the work they do.
//
//   auto shared = magnetar::client_resources::create(2);
//   magnetar::client_config config;
//   config.shared_resources = shared;
//   auto a = magnetar::client::create(url, config);  // a and b run on the same 2 threads
//   auto b = magnetar::client::create(url, config);
//
// Each client still has its own connections, producers and consumers; only the threads
// are shared. The threads stop when the last reference (the caller's and every client's)
// is gone. Thread-safe.
#pragma once

#include <memory>

namespace magnetar {

namespace io {
class shard_set;
}

class client_resources {
 public:
  // Starts `io_threads` threads (at least one).
  static std::shared_ptr<client_resources> create(unsigned io_threads);

  unsigned io_threads() const;

  // The running threads, for the SDK's clients.
  const std::shared_ptr<io::shard_set>& shards() const { return _shards; }

 private:
  explicit client_resources(std::shared_ptr<io::shard_set> shards) : _shards(std::move(shards)) {}

  std::shared_ptr<io::shard_set> _shards;
};

}  // namespace magnetar
