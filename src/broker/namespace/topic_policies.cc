#include "broker/namespace/topic_policies.h"

#include <algorithm>
#include <limits>

namespace magnetar::broker {

using nlohmann::json;

namespace {

const json* field(const json& policies, const char* name) {
  if (!policies.is_object()) return nullptr;
  auto it = policies.find(name);
  return it == policies.end() || it->is_null() ? nullptr : &*it;
}

std::optional<backlog_quota> default_quota(const broker_config& config) {
  if (config.backlog_quota_default_limit_bytes < 0) return std::nullopt;
  backlog_quota quota;
  quota.limit_size = config.backlog_quota_default_limit_bytes;
  quota.policy = backlog_quota_policy_of(config.backlog_quota_default_retention_policy)
                     .value_or(backlog_quota_policy::producer_request_hold);
  return quota;
}

}  // namespace

topic_policies resolve_policies(const json& policies, const broker_config& config) {
  topic_policies out;

  out.deduplication_enabled = config.broker_deduplication_enabled;
  if (const auto* dedup = field(policies, "deduplicationEnabled"); dedup && dedup->is_boolean()) {
    out.deduplication_enabled = dedup->get<bool>();
  }

  out.message_ttl_seconds = config.ttl_duration_default_in_seconds;
  if (const auto* ttl = field(policies, "message_ttl_in_seconds"); ttl && ttl->is_number_integer()) {
    out.message_ttl_seconds = std::max<std::int64_t>(0, ttl->get<std::int64_t>());
  }

  out.storage_quota = default_quota(config);
  if (const auto* map = field(policies, "backlog_quota_map")) {
    if (const auto* storage = field(*map, "destination_storage")) {
      if (auto quota = backlog_quota_from_json(*storage)) out.storage_quota = quota.value();
    }
  }

  // Upstream takes a namespace's 0 as "unset", so the broker's default applies then too.
  auto limit = [&](const char* name, int broker_default) {
    const auto* value = field(policies, name);
    if (value && value->is_number_integer() && value->get<std::int64_t>() > 0) {
      return static_cast<int>(std::min<std::int64_t>(value->get<std::int64_t>(), std::numeric_limits<int>::max()));
    }
    return broker_default;
  };
  out.max_producers = limit("max_producers_per_topic", config.max_producers_per_topic);
  out.max_consumers = limit("max_consumers_per_topic", config.max_consumers_per_topic);

  if (const auto* clusters = field(policies, "replication_clusters"); clusters && clusters->is_array()) {
    for (const auto& c : *clusters) {
      if (c.is_string()) out.replication_clusters.push_back(c.get<std::string>());
    }
  }

  std::int64_t minutes = config.default_retention_time_minutes;
  std::int64_t megabytes = config.default_retention_size_mb;
  if (const auto* retention = field(policies, "retention_policies")) {
    if (auto r = retention_from_json(*retention)) {
      minutes = r.value().retention_time_in_minutes;
      megabytes = r.value().retention_size_in_mb;
    }
  }
  out.retention_time = minutes < 0 ? std::chrono::milliseconds(-1) : std::chrono::minutes(minutes);
  out.retention_size_bytes = megabytes < 0 ? -1 : megabytes * 1024 * 1024;
  return out;
}

}  // namespace magnetar::broker
