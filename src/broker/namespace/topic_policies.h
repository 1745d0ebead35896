// topic_policies: the policies one topic runs under: its namespace's Policies (the
// metadata store's JSON, as pulsar-admin writes it) over the broker's defaults, as
// upstream resolves them (a namespace field that is set wins; else broker.conf).
// Plain values and pure functions; thread-safe.
#pragma once

#include "broker/api/broker_config.h"
#include "broker/namespace/namespace_resources.h"

#include <nlohmann/json.hpp>

#include <chrono>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace magnetar::broker {

struct topic_policies {
  bool deduplication_enabled = false;
  std::int64_t message_ttl_seconds = 0;  // 0: messages never expire
  // The destination_storage quota; nullopt or a limit_size of -1: no size quota.
  std::optional<backlog_quota> storage_quota;
  // Managed-ledger retention: -1 unbounded, 0 none.
  std::chrono::milliseconds retention_time{0};
  std::int64_t retention_size_bytes = 0;
  // 0: no limit.
  int max_producers = 0;
  int max_consumers = 0;
  // The clusters that hold the namespace's topics (replication_clusters): more than one
  // means geo-replication.
  std::vector<std::string> replication_clusters;

  bool has_size_quota() const { return storage_quota && storage_quota->limit_size >= 0; }
};

// `policies`: the namespace's Policies JSON, or null when it could not be read (the
// broker's defaults then). A field of the wrong type counts as unset.
topic_policies resolve_policies(const nlohmann::json& policies, const broker_config& config);

}  // namespace magnetar::broker
