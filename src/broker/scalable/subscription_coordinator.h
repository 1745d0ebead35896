// subscription_coordinator: the stream consumers of one subscription of a scalable
// topic, and which segments each reads (assignment.h), on the controller's broker.
//
// Consumers register by name (stable across reconnects) with a consumer id (per
// connection). A disconnected consumer keeps its segments for the grace period, so a
// reconnect within it gets the same assignment back and nobody else moves; after it,
// the rest are rebalanced. Every change of membership, layout or drained parents
// recomputes the assignments and pushes SCALABLE_TOPIC_ASSIGNMENT_UPDATE to each
// connected consumer whose assignment changed.
//
// Drain checks: while some sealed segment that a consumer reads has not drained, its
// backlog is checked with a backoff (drain_check_initial, doubling to drain_check_max),
// reset whenever something changes. A drained segment releases its children.
//
// Lives on the scalable service's shard; every call there.
#pragma once

#include "base/clock.h"
#include "broker/scalable/assignment.h"
#include "io/asio.h"
#include "io/timer.h"
#include "wire/topic_name.h"

#include <chrono>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <set>
#include <string>

namespace magnetar::broker {
class client_channel;
}

namespace magnetar::broker::scalable {

struct coordinator_settings {
  std::chrono::milliseconds grace_period{60'000};
  std::chrono::milliseconds drain_check_initial{100};
  std::chrono::milliseconds drain_check_max{5'000};
};

class subscription_coordinator : public std::enable_shared_from_this<subscription_coordinator> {
 public:
  // true when the subscription has no backlog on the (sealed) segment topic.
  using drain_probe = std::function<awaitable<bool>(std::string segment_topic, std::string subscription)>;

  subscription_coordinator(asio::any_io_executor executor, base::clock& clock, coordinator_settings settings,
                           wire::topic_name topic, std::string subscription, segment_layout layout, drain_probe probe);

  // Registers (or re-attaches) a consumer and returns its assignment; the others get
  // theirs pushed when membership changed.
  consumer_assignment attach(const std::string& name, std::uint64_t consumer_id,
                             const std::shared_ptr<client_channel>& conn);
  // The connection closed: its consumers start their grace period. `expired` is called
  // with each consumer name whose grace ran out (to drop its registration).
  void connection_closed(std::uint64_t connection_id, std::function<void(std::string)> expired);
  void layout_changed(segment_layout layout);
  // A sealed segment may have drained: check at once (the backoff starts over).
  void check_drains_now();
  // Stops timers and pushes; the coordinator is being dropped.
  void close();

  bool has_consumers() const { return !_sessions.empty(); }
  const std::set<std::uint64_t>& drained() const { return _drained; }

 private:
  struct session {
    std::uint64_t consumer_id = 0;
    std::uint64_t connection_id = 0;
    std::weak_ptr<client_channel> conn;  // empty while disconnected
    std::uint64_t grace_generation = 0;
    consumer_assignment last_pushed;
  };

  void rebalance(const std::string& except);
  void push(const std::string& name, session& s, const consumer_assignment& assignment);
  void restart_drain_checks(bool check_first = false);
  awaitable<void> drain_loop(std::uint64_t generation, bool check_first);
  awaitable<void> grace_timer(std::string name, std::uint64_t generation, std::function<void(std::string)> expired);
  std::map<std::string, consumer_assignment> compute() const;

  asio::any_io_executor _executor;
  base::clock& _clock;
  const coordinator_settings _settings;
  const wire::topic_name _topic;
  const topic_parts _parts;
  const std::string _subscription;
  segment_layout _layout;
  drain_probe _probe;
  std::map<std::string, session> _sessions;
  std::set<std::uint64_t> _drained;
  std::uint64_t _drain_generation = 0;
  std::uint64_t _next_grace_generation = 0;
  std::shared_ptr<io::timer> _drain_timer;
  bool _closed = false;
};

}  // namespace magnetar::broker::scalable
