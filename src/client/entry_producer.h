// entry_producer: for magnetar's broker, not for applications. A producer that sends
// entries as another cluster stored them (metadata and payload, batched and compressed
// already) under sequence ids its caller picks: geo-replication's replicator
// (broker/replication) forwards each entry unchanged but for its replicated_from.
//
// It is a producer_impl underneath: lookups, reconnects with backoff, and everything
// not yet receipted sent again in order on the new connection. The receiving broker
// deduplicates by the producer name and sequence ids inside the metadata (the original
// producer's), so a resend never stores an entry twice.
//
// Threading: as producer_impl (any thread; callbacks on the client's io threads).
#pragma once

#include "base/result.h"
#include "magnetar/client.h"
#include "magnetar/config.h"
#include "magnetar/producer.h"
#include "proto/pulsar_api.pb.h"

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

namespace magnetar::client_detail {

class producer_impl;

class entry_producer {
 public:
  // Looks `topic` up (a full name; a partition's own for a partitioned topic) in the
  // cluster `c` reaches, connects and registers the producer. `done` runs on one of c's
  // io threads. Errors: as client::create_producer.
  static void start_async(const client& c, std::string topic, producer_config config,
                          std::function<void(result<std::shared_ptr<entry_producer>>)> done);

  explicit entry_producer(std::shared_ptr<producer_impl> impl);
  ~entry_producer();

  // `sequence_id` increases from call to call. `done` gets the entry's id in the
  // receiving cluster (-1:-1 when it was stored already), or an error (timeout,
  // already_closed, ...) after which the caller sends again what is not receipted.
  void send_async(proto::MessageMetadata metadata, std::vector<std::byte> payload, std::uint64_t sequence_id,
                  send_callback done);
  bool is_connected() const;
  // Closes without waiting for receipts; pending sends fail with already_closed.
  void close();

 private:
  std::shared_ptr<producer_impl> _impl;
};

}  // namespace magnetar::client_detail
