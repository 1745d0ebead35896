// namespace_resources: clusters, tenants, namespaces with their policies, and
// partitioned-topic metadata, kept in the configuration store (which the clusters of a
// geo-replicated deployment share; a single cluster's metadata store otherwise) at
// upstream's paths and in upstream's JSON, so the layout reads like a Pulsar cluster's
// ZooKeeper:
//
//   /admin/clusters/<cluster>                          ClusterData {"serviceUrl": ..., "brokerServiceUrl": ...}
//   /admin/policies/<tenant>                           TenantInfo {"adminRoles": [], "allowedClusters": [...]}
//   /admin/policies/<tenant>/<namespace>               Policies {"replication_clusters": [...], "bundles": ...,
//                                                      "retention_policies": {...}, ...}
//   /admin/partitioned-topics/<tenant>/<namespace>/persistent/<topic>   {"partitions": N}
//
// Non-partitioned topics are not recorded here: a persistent topic exists when its
// managed ledger does (/managed-ledgers/<tenant>/<namespace>/persistent/<topic>, in the
// cluster's own metadata store).
//
// Used by the admin REST API and by the broker core at lookup and topic creation
// (namespace_exists, partitioned_partitions). Errors are broker::errc:
// tenant_not_found, namespace_not_found, topic_not_found, conflict (exists, or not empty
// on delete), invalid_request, metadata_error (the store failed; its message in the
// detail). Details are Pulsar's reasons ("Namespace does not exist", ...).
//
// Thread-safety: every call may run concurrently from any executor; the class keeps no
// state of its own besides the store reference and the cluster name, and updates of a
// namespace's policies are compare-and-set loops on the node's version.
#pragma once

#include "base/result.h"
#include "io/asio.h"
#include "meta/store.h"
#include "wire/topic_name.h"

#include <nlohmann/json.hpp>

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

namespace magnetar::broker {

struct tenant_info {
  std::vector<std::string> admin_roles;
  std::vector<std::string> allowed_clusters;
  friend bool operator==(const tenant_info&, const tenant_info&) = default;
};

// Pulsar's RetentionPolicies: -1 is infinite, 0 is none.
struct retention_policies {
  std::int64_t retention_time_in_minutes = 0;
  std::int64_t retention_size_in_mb = 0;
  friend bool operator==(const retention_policies&, const retention_policies&) = default;
};

// Pulsar's BacklogQuota for one quota type: the limit on the backlog's size in bytes
// (limitSize) or age in seconds (limitTime), -1 for none, and what happens beyond it.
enum class backlog_quota_policy { producer_request_hold, producer_exception, consumer_backlog_eviction };
struct backlog_quota {
  std::int64_t limit_size = -1;
  std::int64_t limit_time = -1;
  backlog_quota_policy policy = backlog_quota_policy::producer_request_hold;
  friend bool operator==(const backlog_quota&, const backlog_quota&) = default;
};
std::string_view name_of(backlog_quota_policy policy);
std::optional<backlog_quota_policy> backlog_quota_policy_of(std::string_view name);

nlohmann::json to_json(const tenant_info& info);
// errc::invalid_request naming the field that is wrong; absent fields are empty.
result<tenant_info> tenant_info_from_json(const nlohmann::json& value);
nlohmann::json to_json(const retention_policies& retention);
result<retention_policies> retention_from_json(const nlohmann::json& value);
// Upstream's JSON: {"limitSize", "limitTime", "policy"}, and "limit" (the old name of
// limitSize, which older clients still send and read).
nlohmann::json to_json(const backlog_quota& quota);
// errc::invalid_request naming what is wrong; "policy" is required.
result<backlog_quota> backlog_quota_from_json(const nlohmann::json& value);

class namespace_resources {
 public:
  // `cluster_name`: this cluster (clusterName), the default of allowedClusters and
  // replication_clusters.
  // One store for both (a standalone, a cluster not geo-replicated), or the cluster's
  // own metadata store and the configuration store it shares with other clusters.
  namespace_resources(meta::store& store, std::string cluster_name);
  namespace_resources(meta::store& local, meta::store& configuration, std::string cluster_name);
  // The cluster's own metadata store (the admin API's bookie and broker routes read it).
  meta::store& store() const { return _local; }
  meta::store& configuration_store() const { return _configuration; }

  // Creates the cluster (with these URLs), tenant `public` and namespace
  // `public/default` where missing: what a standalone does on its first start. Safe to
  // call on every start and concurrently.
  // The TLS URLs (serviceUrlTls, brokerServiceUrlTls) are written when not empty.
  awaitable<result<void>> ensure_defaults(std::string service_url, std::string broker_service_url,
                                          std::string service_url_tls = {}, std::string broker_service_url_tls = {});

  // Clusters.
  awaitable<result<std::vector<std::string>>> list_clusters();
  // ClusterData JSON; errc::invalid_request "Cluster does not exist" when absent
  // (Pulsar answers 404 for it: the REST layer checks with cluster_exists first).
  awaitable<result<std::optional<nlohmann::json>>> get_cluster(std::string name);
  awaitable<result<void>> create_cluster(std::string name, nlohmann::json data);
  // Callers check that it exists first; delete_cluster: precondition_failed while a
  // tenant's allowedClusters names it.
  awaitable<result<void>> update_cluster(std::string name, nlohmann::json data);
  awaitable<result<void>> delete_cluster(std::string name);

  // Tenants.
  awaitable<result<std::vector<std::string>>> list_tenants();
  awaitable<result<tenant_info>> get_tenant(std::string tenant);
  // conflict "Tenant already exists"; invalid_request for unknown allowed clusters.
  awaitable<result<void>> create_tenant(std::string tenant, tenant_info info);
  awaitable<result<void>> update_tenant(std::string tenant, tenant_info info);
  // conflict "The tenant still has active namespaces".
  awaitable<result<void>> delete_tenant(std::string tenant);

  // Namespaces, named "tenant/namespace".
  awaitable<result<std::vector<std::string>>> list_namespaces(std::string tenant);
  awaitable<result<bool>> namespace_exists(std::string namespace_name);
  // The Policies JSON.
  awaitable<result<nlohmann::json>> get_policies(std::string namespace_name);
  // `policies`: fields that override the defaults (may be null); `bundles`: the number
  // of bundles (Pulsar's defaultNumberOfNamespaceBundles, 4, when nullopt).
  // tenant_not_found "Tenant does not exist"; conflict "Namespace already exists".
  awaitable<result<void>> create_namespace(std::string namespace_name, nlohmann::json policies,
                                           std::optional<int> bundles = std::nullopt);
  // Read-modify-write of the Policies JSON, retried on a concurrent change.
  awaitable<result<void>> update_policies(std::string namespace_name,
                                          std::function<result<void>(nlohmann::json&)> change);
  // conflict "Cannot delete non empty namespace" while it has topics.
  awaitable<result<void>> delete_namespace(std::string namespace_name);

  // The namespace's retention, or nullopt when it has none of its own.
  awaitable<result<std::optional<retention_policies>>> get_retention(std::string namespace_name);
  awaitable<result<void>> set_retention(std::string namespace_name, retention_policies retention);

  // Partitioned topics (the topic's partitioned parent is used for a partition's name).
  // namespace_not_found; conflict "This topic already exists" when it exists,
  // partitioned or not; invalid_request when partitions < 1.
  awaitable<result<void>> create_partitioned(wire::topic_name topic, int partitions);
  // The number of partitions, 0 when the topic is not partitioned (Pulsar's
  // PartitionedTopicMetadata).
  awaitable<result<int>> partitioned_partitions(wire::topic_name topic);
  // Raises the number of partitions from `from` (compare-and-set: conflict when it
  // changed meanwhile); topic_not_found when not partitioned.
  awaitable<result<void>> update_partitions(wire::topic_name topic, int from, int to);
  // topic_not_found "Partitioned topic does not exist".
  awaitable<result<void>> delete_partitioned(wire::topic_name topic);
  // Full names of the namespace's partitioned topics.
  awaitable<result<std::vector<std::string>>> list_partitioned(std::string namespace_name);
  // Whether a non-partitioned persistent topic has a managed ledger.
  awaitable<result<bool>> managed_ledger_exists(wire::topic_name topic);

  const std::string& cluster_name() const { return _cluster; }

 private:
  awaitable<result<void>> create_if_missing(std::string path, std::string value);

  meta::store& _local;
  meta::store& _configuration;
  const std::string _cluster;
};

// Paths (exposed for tests and for the broker core).
std::string cluster_path(std::string_view cluster);
std::string tenant_path(std::string_view tenant);
std::string namespace_path(std::string_view namespace_name);
std::string partitioned_topic_path(const wire::topic_name& topic);

}  // namespace magnetar::broker
