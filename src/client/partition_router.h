// partition_router: picks the partition of each message a partitioned producer sends,
// as upstream's routers do (lib/RoundRobinMessageRouter.cc,
// lib/SinglePartitionMessageRouter.cc), so that traffic spreads the same way.
//
// Keyed messages go to key_hash(key) % partitions in both built-in modes. Keyless ones:
// round_robin stays on one partition for a batch's worth of messages (batching_max_messages,
// batching_max_bytes or batching_max_delay, whichever comes first) so batches stay full,
// then moves to the next; unbatched it moves on every message. single_partition sends
// them all to one partition picked at random once.
//
// Not thread-safe: the partitioned producer calls choose() under its own lock.
#pragma once

#include "base/clock.h"
#include "magnetar/config.h"
#include "magnetar/message.h"

#include <cstdint>
#include <memory>

namespace magnetar::client_detail {

class partition_router {
 public:
  virtual ~partition_router() = default;
  // The partition for `m`; custom routers may answer out of range (the caller checks).
  virtual unsigned choose(const message& m, unsigned partitions) = 0;
};

class round_robin_router final : public partition_router {
 public:
  // `start` is where the cursor begins (upstream: random, so producers spread out).
  round_robin_router(hashing_scheme hashing, const producer_config& config, const base::clock& clock,
                     std::uint32_t start);
  unsigned choose(const message& m, unsigned partitions) override;

 private:
  const hashing_scheme _hashing;
  const bool _batching;
  const std::uint32_t _max_messages;
  const std::size_t _max_bytes;
  const base::clock::duration _max_delay;
  const base::clock& _clock;
  std::uint32_t _cursor;
  base::clock::time_point _last_change;
  std::uint32_t _messages = 0;
  std::size_t _bytes = 0;
};

class single_partition_router final : public partition_router {
 public:
  single_partition_router(hashing_scheme hashing, unsigned partition) : _hashing(hashing), _partition(partition) {}
  unsigned choose(const message& m, unsigned partitions) override;

 private:
  const hashing_scheme _hashing;
  const unsigned _partition;
};

// The router producer_config asks for, over `partitions` partitions (random starting
// points as upstream). Errors: invalid_argument (custom without a message_router).
result<std::unique_ptr<partition_router>> make_partition_router(const producer_config& config, unsigned partitions,
                                                                const base::clock& clock);

}  // namespace magnetar::client_detail
