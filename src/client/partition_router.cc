#include "client/partition_router.h"

#include "client/hashing.h"
#include "magnetar/errc.h"

#include <random>

namespace magnetar::client_detail {

namespace {

unsigned by_key(hashing_scheme hashing, const message& m, unsigned partitions) {
  return static_cast<unsigned>(key_hash(hashing, m.key())) % partitions;
}

class custom_router final : public partition_router {
 public:
  explicit custom_router(std::function<unsigned(const message&, unsigned)> route) : _route(std::move(route)) {}
  unsigned choose(const message& m, unsigned partitions) override { return _route(m, partitions); }

 private:
  const std::function<unsigned(const message&, unsigned)> _route;
};

std::uint32_t random_below(std::uint32_t bound) {
  std::random_device device;
  std::mt19937 g(device());
  return std::uniform_int_distribution<std::uint32_t>(0, bound - 1)(g);
}

}  // namespace

round_robin_router::round_robin_router(hashing_scheme hashing, const producer_config& config, const base::clock& clock,
                                       std::uint32_t start)
    : _hashing(hashing),
      _batching(config.batching_enabled),
      _max_messages(config.batching_max_messages),
      _max_bytes(config.batching_max_bytes),
      _max_delay(config.batching_max_delay),
      _clock(clock),
      _cursor(start),
      _last_change(clock.now()) {}

unsigned round_robin_router::choose(const message& m, unsigned partitions) {
  if (partitions == 1) return 0;
  if (m.has_key()) return by_key(_hashing, m, partitions);
  if (!_batching) return _cursor++ % partitions;
  // Stay while the current batch could still take this message, as upstream: the
  // producer's batch then fills up instead of spreading one message per partition.
  const auto now = _clock.now();
  if (_messages >= _max_messages || m.size() + _bytes >= _max_bytes || now - _last_change >= _max_delay) {
    ++_cursor;
    _last_change = now;
    _messages = 1;
    _bytes = m.size();
    return _cursor % partitions;
  }
  ++_messages;
  _bytes += m.size();
  return _cursor % partitions;
}

unsigned single_partition_router::choose(const message& m, unsigned partitions) {
  if (m.has_key()) return by_key(_hashing, m, partitions);
  return _partition;
}

result<std::unique_ptr<partition_router>> make_partition_router(const producer_config& config, unsigned partitions,
                                                                const base::clock& clock) {
  std::unique_ptr<partition_router> router;
  switch (config.routing_mode) {
    case partition_routing_mode::round_robin:
      router = std::make_unique<round_robin_router>(config.hashing, config, clock,
                                                    random_below(std::numeric_limits<std::uint32_t>::max()));
      break;
    case partition_routing_mode::single_partition:
      router = std::make_unique<single_partition_router>(config.hashing, random_below(partitions));
      break;
    case partition_routing_mode::custom:
      if (!config.message_router) {
        return fail(client_errc::invalid_argument, "routing_mode custom needs producer_config::message_router");
      }
      router = std::make_unique<custom_router>(config.message_router);
      break;
  }
  return router;
}

}  // namespace magnetar::client_detail
