// The topic's namespace policies and the periodic work they ask for: reading them,
// message expiry (TTL) and the backlog quota check.
#include "base/log.h"
#include "broker/namespace/namespace_resources.h"
#include "broker/topic/backlog_quota.h"
#include "broker/topic/message_expiry.h"
#include "broker/topic/producer.h"
#include "broker/topic/topic.h"
#include "broker/topic/topic_registry.h"

#include <algorithm>

namespace magnetar::broker {

awaitable<result<void>> topic::refresh_policies() {
  auto read = co_await _registry.resources().get_policies(_name.namespace_name());
  if (_closing) co_return success();
  if (read) {
    _policies = resolve_policies(read.value(), config());
  } else {
    // What was read last (the broker's defaults before the first read) is the better
    // guess than nothing; the next refresh retries. Above all, a configuration store out
    // of reach must not switch deduplication or replication off.
    spdlog::warn("{}: reading the namespace's policies: {}", _full_name, read.error());
  }
  _ledger->set_retention(_policies.retention_time, _policies.retention_size_bytes);
  // A replicated topic deduplicates what other clusters' replicators send (their resends
  // after a broken link): see replicated_publish.cc.
  const bool replicated = _policies.replication_clusters.size() > 1;
  auto dedup = co_await _dedup->set_enabled(_policies.deduplication_enabled || replicated);
  if (!dedup) spdlog::warn("{}: deduplication: {}", _full_name, dedup.error());
  if (_replication && read && !_closing) co_await _replication->set_clusters(_policies.replication_clusters);
  co_return dedup;
}

awaitable<void> topic::policy_loop(std::shared_ptr<io::gate::pass> /*held*/) {
  const auto& c = config();
  using time_point = base::clock::time_point;
  time_point now = clock().now();
  time_point next_refresh = now + c.namespace_policies_refresh_interval;
  time_point next_expiry = now + c.message_expiry_check_interval;
  time_point next_quota = now + c.backlog_quota_check_interval;
  // Time-based deduplication snapshots and the inactive-producer purge share a period
  // (without a snapshot interval, the purge still runs every minute).
  const base::clock::duration dedup_period = c.broker_deduplication_snapshot_interval.count() > 0
                                                 ? base::clock::duration(c.broker_deduplication_snapshot_interval)
                                                 : base::clock::duration(std::chrono::minutes(1));
  time_point next_dedup = now + dedup_period;
  while (!_closing) {
    const auto wake = std::min({next_refresh, next_expiry, next_quota, next_dedup});
    const bool reached = co_await _policy_timer->wait_until(wake);
    if (!reached || _closing) break;
    now = clock().now();
    if (now >= next_refresh) {
      auto refreshed = co_await refresh_policies();  // logged; the next refresh retries
      (void)refreshed;
      next_refresh = clock().now() + c.namespace_policies_refresh_interval;
    }
    if (_closing) break;
    if (now >= next_expiry) {
      auto expired = co_await expire_messages(*this, _policies.message_ttl_seconds);
      if (!expired && !_closing) spdlog::warn("{}: message expiry: {}", _full_name, expired.error());
      next_expiry = clock().now() + c.message_expiry_check_interval;
    }
    if (_closing) break;
    if (now >= next_quota) {
      if (c.backlog_quota_check_enabled) enforce_backlog_quota(*this);
      next_quota = clock().now() + c.backlog_quota_check_interval;
    }
    if (now >= next_dedup) {
      std::vector<std::string> connected;
      for (const auto& p : _producers) connected.push_back(p->name());
      _dedup->purge_inactive(connected, now, c.broker_deduplication_producer_inactivity_timeout);
      if (c.broker_deduplication_snapshot_interval.count() > 0) _dedup->snapshot_if_behind();
      next_dedup = clock().now() + dedup_period;
    }
  }
}

}  // namespace magnetar::broker
