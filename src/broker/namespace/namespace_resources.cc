#include "broker/namespace/namespace_resources.h"

#include "broker/api/errc.h"
#include "meta/errc.h"

#include <fmt/format.h>

#include <algorithm>

namespace magnetar::broker {

using nlohmann::json;

namespace {

constexpr int policy_update_attempts = 20;
constexpr int default_bundles = 4;  // Pulsar's defaultNumberOfNamespaceBundles

auto store_error(const error& e) { return fail(errc::metadata_error, fmt::format("metadata store: {}", e.message())); }

json bundles_json(int count) {
  json boundaries = json::array();
  const std::uint64_t step = (std::uint64_t{1} << 32) / static_cast<std::uint64_t>(count);
  for (int i = 0; i < count; ++i) boundaries.push_back(fmt::format("0x{:08x}", step * static_cast<std::uint64_t>(i)));
  boundaries.push_back("0xffffffff");
  return json{{"boundaries", std::move(boundaries)}, {"numBundles", count}};
}

json default_policies(const std::string& cluster, int bundles) {
  return json{{"auth_policies",
               {{"namespace_auth", json::object()},
                {"destination_auth", json::object()},
                {"subscription_auth_roles", json::object()}}},
              {"replication_clusters", json::array({cluster})},
              {"bundles", bundles_json(bundles)},
              {"backlog_quota_map", json::object()},
              {"deleted", false},
              {"encryption_required", false},
              {"subscription_auth_mode", "None"},
              {"is_allow_auto_update_schema", true},
              {"schema_validation_enforced", false},
              {"properties", json::object()}};
}

// Stored values are ours, but a foreign writer (or a ZooKeeper shared with a Java
// broker) may have left anything: parse without throwing.
result<json> parse_stored(const std::string& path, const std::string& text) {
  auto parsed = json::parse(text, nullptr, false);
  if (parsed.is_discarded()) return fail(errc::metadata_error, fmt::format("{} holds invalid JSON", path));
  return parsed;
}

result<std::vector<std::string>> string_list(const json& value, const char* field) {
  auto it = value.find(field);
  std::vector<std::string> out;
  if (it == value.end() || it->is_null()) return out;
  if (!it->is_array()) return fail(errc::invalid_request, fmt::format("'{}' must be a list of strings", field));
  for (const auto& item : *it) {
    if (!item.is_string()) return fail(errc::invalid_request, fmt::format("'{}' must be a list of strings", field));
    out.push_back(item.get<std::string>());
  }
  return out;
}

result<std::int64_t> integer_field(const json& value, const char* field) {
  auto it = value.find(field);
  if (it == value.end() || it->is_null()) return 0;
  if (!it->is_number_integer()) return fail(errc::invalid_request, fmt::format("'{}' must be an integer", field));
  return it->get<std::int64_t>();
}

bool valid_namespace(std::string_view name) {
  auto slash = name.find('/');
  return slash != std::string_view::npos && wire::is_valid_name_part(name.substr(0, slash)) &&
         wire::is_valid_name_part(name.substr(slash + 1));
}

std::string tenant_of(std::string_view namespace_name) {
  return std::string(namespace_name.substr(0, namespace_name.find('/')));
}

std::string persistent_dir(std::string_view root, std::string_view namespace_name) {
  return fmt::format("{}/{}/persistent", root, namespace_name);
}

}  // namespace

std::string cluster_path(std::string_view cluster) { return fmt::format("/admin/clusters/{}", cluster); }
std::string tenant_path(std::string_view tenant) { return fmt::format("/admin/policies/{}", tenant); }
std::string namespace_path(std::string_view namespace_name) {
  return fmt::format("/admin/policies/{}", namespace_name);
}
std::string partitioned_topic_path(const wire::topic_name& topic) {
  return fmt::format("/admin/partitioned-topics/{}", topic.partitioned_parent().persistence_name());
}

json to_json(const tenant_info& info) {
  return json{{"adminRoles", info.admin_roles}, {"allowedClusters", info.allowed_clusters}};
}

result<tenant_info> tenant_info_from_json(const json& value) {
  if (value.is_null()) return tenant_info{};
  if (!value.is_object()) return fail(errc::invalid_request, "TenantInfo must be a JSON object");
  MAGNETAR_TRY(roles, string_list(value, "adminRoles"));
  MAGNETAR_TRY(clusters, string_list(value, "allowedClusters"));
  return tenant_info{.admin_roles = std::move(roles), .allowed_clusters = std::move(clusters)};
}

json to_json(const retention_policies& r) {
  return json{{"retentionTimeInMinutes", r.retention_time_in_minutes}, {"retentionSizeInMB", r.retention_size_in_mb}};
}

result<retention_policies> retention_from_json(const json& value) {
  if (!value.is_object()) return fail(errc::invalid_request, "RetentionPolicies must be a JSON object");
  MAGNETAR_TRY(minutes, integer_field(value, "retentionTimeInMinutes"));
  MAGNETAR_TRY(megabytes, integer_field(value, "retentionSizeInMB"));
  if (minutes < -1 || megabytes < -1) {
    return fail(errc::invalid_request, "Retention time and size must be -1 (infinite), 0 or more");
  }
  return retention_policies{.retention_time_in_minutes = minutes, .retention_size_in_mb = megabytes};
}

std::string_view name_of(backlog_quota_policy policy) {
  switch (policy) {
    case backlog_quota_policy::producer_request_hold: return "producer_request_hold";
    case backlog_quota_policy::producer_exception: return "producer_exception";
    case backlog_quota_policy::consumer_backlog_eviction: return "consumer_backlog_eviction";
  }
  return "producer_request_hold";
}

std::optional<backlog_quota_policy> backlog_quota_policy_of(std::string_view name) {
  for (auto p : {backlog_quota_policy::producer_request_hold, backlog_quota_policy::producer_exception,
                 backlog_quota_policy::consumer_backlog_eviction}) {
    if (name_of(p) == name) return p;
  }
  return std::nullopt;
}

json to_json(const backlog_quota& q) {
  return json{
      {"limit", q.limit_size}, {"limitSize", q.limit_size}, {"limitTime", q.limit_time}, {"policy", name_of(q.policy)}};
}

result<backlog_quota> backlog_quota_from_json(const json& value) {
  if (!value.is_object()) return fail(errc::invalid_request, "BacklogQuota must be a JSON object");
  backlog_quota quota;
  auto number = [&](const char* field, std::int64_t& into) -> result<void> {
    auto it = value.find(field);
    if (it == value.end() || it->is_null()) return success();
    if (!it->is_number_integer() || it->get<std::int64_t>() < -1) {
      return fail(errc::invalid_request, fmt::format("'{}' must be -1 (none) or a non-negative integer", field));
    }
    into = it->get<std::int64_t>();
    return success();
  };
  MAGNETAR_TRY(number("limit", quota.limit_size));
  MAGNETAR_TRY(number("limitSize", quota.limit_size));  // the newer name wins when both are there
  MAGNETAR_TRY(number("limitTime", quota.limit_time));
  auto policy = value.find("policy");
  if (policy == value.end() || !policy->is_string() || !backlog_quota_policy_of(policy->get<std::string>())) {
    return fail(errc::invalid_request,
                "'policy' must be producer_request_hold, producer_exception or consumer_backlog_eviction");
  }
  quota.policy = *backlog_quota_policy_of(policy->get<std::string>());
  return quota;
}

namespace_resources::namespace_resources(meta::store& store, std::string cluster_name)
    : namespace_resources(store, store, std::move(cluster_name)) {}

namespace_resources::namespace_resources(meta::store& local, meta::store& configuration, std::string cluster_name)
    : _local(local), _configuration(configuration), _cluster(std::move(cluster_name)) {}

awaitable<result<void>> namespace_resources::create_if_missing(std::string path, std::string value) {
  auto put = co_await _configuration.put(path, std::move(value), -1);
  if (!put && put.error() != meta::errc::bad_version) co_return store_error(put.error());
  co_return success();
}

awaitable<result<void>> namespace_resources::ensure_defaults(std::string service_url, std::string broker_service_url,
                                                             std::string service_url_tls,
                                                             std::string broker_service_url_tls) {
  json cluster{{"serviceUrl", std::move(service_url)}, {"brokerServiceUrl", std::move(broker_service_url)}};
  if (!service_url_tls.empty()) cluster["serviceUrlTls"] = std::move(service_url_tls);
  if (!broker_service_url_tls.empty()) cluster["brokerServiceUrlTls"] = std::move(broker_service_url_tls);
  auto made_cluster = co_await create_if_missing(cluster_path(_cluster), cluster.dump());
  if (!made_cluster) co_return fail(made_cluster.error());
  tenant_info public_tenant;
  public_tenant.allowed_clusters.push_back(_cluster);
  auto tenant_json = to_json(public_tenant).dump();
  auto made_tenant = co_await create_if_missing(tenant_path("public"), std::move(tenant_json));
  if (!made_tenant) co_return fail(made_tenant.error());
  auto policies_json = default_policies(_cluster, default_bundles).dump();
  auto made_namespace = co_await create_if_missing(namespace_path("public/default"), std::move(policies_json));
  if (!made_namespace) co_return fail(made_namespace.error());
  co_return success();
}

awaitable<result<std::vector<std::string>>> namespace_resources::list_clusters() {
  auto names = co_await _configuration.children("/admin/clusters");
  if (!names) co_return store_error(names.error());
  co_return std::move(names).value();
}

awaitable<result<std::optional<json>>> namespace_resources::get_cluster(std::string name) {
  auto path = cluster_path(name);
  auto got = co_await _configuration.get(path);
  if (!got) co_return store_error(got.error());
  if (!got.value()) co_return std::optional<json>();
  MAGNETAR_CO_TRY(data, parse_stored(path, got.value()->value));
  co_return std::optional<json>(std::move(data));
}

awaitable<result<void>> namespace_resources::create_cluster(std::string name, json data) {
  auto put = co_await _configuration.put(cluster_path(name), data.dump(), -1);
  if (!put && put.error() == meta::errc::bad_version) co_return fail(errc::conflict, "Cluster already exists");
  if (!put) co_return store_error(put.error());
  co_return success();
}

awaitable<result<void>> namespace_resources::update_cluster(std::string name, json data) {
  auto put = co_await _configuration.put(cluster_path(name), data.dump(), std::nullopt);
  if (!put) co_return store_error(put.error());
  co_return success();
}

awaitable<result<void>> namespace_resources::delete_cluster(std::string name) {
  MAGNETAR_CO_TRY(tenants, co_await list_tenants());
  for (const auto& tenant : tenants) {
    MAGNETAR_CO_TRY(info, co_await get_tenant(tenant));
    if (std::find(info.allowed_clusters.begin(), info.allowed_clusters.end(), name) != info.allowed_clusters.end()) {
      co_return fail(errc::precondition_failed, fmt::format("Cluster {} is still allowed by tenant {}", name, tenant));
    }
  }
  auto removed = co_await _configuration.remove(cluster_path(name), std::nullopt);
  if (!removed) co_return store_error(removed.error());
  co_return success();
}

awaitable<result<std::vector<std::string>>> namespace_resources::list_tenants() {
  auto names = co_await _configuration.children("/admin/policies");
  if (!names) co_return store_error(names.error());
  co_return std::move(names).value();
}

awaitable<result<tenant_info>> namespace_resources::get_tenant(std::string tenant) {
  auto path = tenant_path(tenant);
  auto got = co_await _configuration.get(path);
  if (!got) co_return store_error(got.error());
  if (!got.value()) co_return fail(errc::tenant_not_found, "Tenant does not exist");
  MAGNETAR_CO_TRY(data, parse_stored(path, got.value()->value));
  co_return tenant_info_from_json(data);
}

awaitable<result<void>> namespace_resources::create_tenant(std::string tenant, tenant_info info) {
  if (!wire::is_valid_name_part(tenant)) co_return fail(errc::invalid_request, "Tenant name is not valid");
  for (const auto& cluster : info.allowed_clusters) {
    auto exists = co_await _configuration.exists(cluster_path(cluster));
    if (!exists) co_return store_error(exists.error());
    if (!exists.value()) co_return fail(errc::invalid_request, fmt::format("Cluster {} does not exist", cluster));
  }
  auto put = co_await _configuration.put(tenant_path(tenant), to_json(info).dump(), -1);
  if (!put && put.error() == meta::errc::bad_version) co_return fail(errc::conflict, "Tenant already exists");
  if (!put) co_return store_error(put.error());
  co_return success();
}

awaitable<result<void>> namespace_resources::update_tenant(std::string tenant, tenant_info info) {
  auto path = tenant_path(tenant);
  auto got = co_await _configuration.get(path);
  if (!got) co_return store_error(got.error());
  if (!got.value()) co_return fail(errc::tenant_not_found, "Tenant does not exist");
  auto put = co_await _configuration.put(path, to_json(info).dump(), got.value()->st.version);
  if (!put && put.error() == meta::errc::bad_version) co_return fail(errc::conflict, "Concurrent modification");
  if (!put) co_return store_error(put.error());
  co_return success();
}

awaitable<result<void>> namespace_resources::delete_tenant(std::string tenant) {
  auto path = tenant_path(tenant);
  auto got = co_await _configuration.get(path);
  if (!got) co_return store_error(got.error());
  if (!got.value()) co_return fail(errc::tenant_not_found, "Tenant does not exist");
  auto namespaces = co_await _configuration.children(path);
  if (!namespaces) co_return store_error(namespaces.error());
  if (!namespaces.value().empty()) co_return fail(errc::conflict, "The tenant still has active namespaces");
  auto removed = co_await _configuration.remove(path, got.value()->st.version);
  if (!removed && removed.error() == meta::errc::not_empty) {
    co_return fail(errc::conflict, "The tenant still has active namespaces");
  }
  if (!removed && removed.error() == meta::errc::not_found)
    co_return fail(errc::tenant_not_found, "Tenant does not exist");
  if (!removed) co_return store_error(removed.error());
  co_return success();
}

awaitable<result<std::vector<std::string>>> namespace_resources::list_namespaces(std::string tenant) {
  auto exists = co_await _configuration.exists(tenant_path(tenant));
  if (!exists) co_return store_error(exists.error());
  if (!exists.value()) co_return fail(errc::tenant_not_found, "Tenant does not exist");
  auto names = co_await _configuration.children(tenant_path(tenant));
  if (!names) co_return store_error(names.error());
  std::vector<std::string> out;
  for (const auto& name : names.value()) out.push_back(tenant + "/" + name);
  co_return out;
}

awaitable<result<bool>> namespace_resources::namespace_exists(std::string namespace_name) {
  if (!valid_namespace(namespace_name)) co_return false;
  auto exists = co_await _configuration.exists(namespace_path(namespace_name));
  if (!exists) co_return store_error(exists.error());
  co_return exists.value();
}

awaitable<result<json>> namespace_resources::get_policies(std::string namespace_name) {
  if (!valid_namespace(namespace_name)) co_return fail(errc::namespace_not_found, "Namespace does not exist");
  auto path = namespace_path(namespace_name);
  auto got = co_await _configuration.get(path);
  if (!got) co_return store_error(got.error());
  if (!got.value()) co_return fail(errc::namespace_not_found, "Namespace does not exist");
  co_return parse_stored(path, got.value()->value);
}

awaitable<result<void>> namespace_resources::create_namespace(std::string namespace_name, json policies,
                                                              std::optional<int> bundles) {
  if (!valid_namespace(namespace_name)) co_return fail(errc::invalid_request, "Namespace name is not valid");
  if (!policies.is_null() && !policies.is_object())
    co_return fail(errc::invalid_request, "Policies must be a JSON object");
  const int count = bundles.value_or(default_bundles);
  if (count < 1 || count > 1024) co_return fail(errc::invalid_request, "The number of bundles must be 1 to 1024");
  auto tenant = co_await _configuration.exists(tenant_path(tenant_of(namespace_name)));
  if (!tenant) co_return store_error(tenant.error());
  if (!tenant.value()) co_return fail(errc::tenant_not_found, "Tenant does not exist");
  auto merged = default_policies(_cluster, count);
  if (policies.is_object()) {
    for (auto& [key, value] : policies.items()) merged[key] = value;
    if (!merged["replication_clusters"].is_array() || merged["replication_clusters"].empty()) {
      merged["replication_clusters"] = json::array({_cluster});
    }
  }
  auto put = co_await _configuration.put(namespace_path(namespace_name), merged.dump(), -1);
  if (!put && put.error() == meta::errc::bad_version) co_return fail(errc::conflict, "Namespace already exists");
  if (!put) co_return store_error(put.error());
  co_return success();
}

awaitable<result<void>> namespace_resources::update_policies(std::string namespace_name,
                                                             std::function<result<void>(json&)> change) {
  if (!valid_namespace(namespace_name)) co_return fail(errc::namespace_not_found, "Namespace does not exist");
  auto path = namespace_path(namespace_name);
  for (int attempt = 0; attempt < policy_update_attempts; ++attempt) {
    auto got = co_await _configuration.get(path);
    if (!got) co_return store_error(got.error());
    if (!got.value()) co_return fail(errc::namespace_not_found, "Namespace does not exist");
    MAGNETAR_CO_TRY(policies, parse_stored(path, got.value()->value));
    MAGNETAR_CO_TRY(change(policies));
    auto put = co_await _configuration.put(path, policies.dump(), got.value()->st.version);
    if (put) co_return success();
    if (put.error() != meta::errc::bad_version) co_return store_error(put.error());
  }
  co_return fail(errc::conflict, "The namespace's policies keep changing concurrently; retry");
}

awaitable<result<void>> namespace_resources::delete_namespace(std::string namespace_name) {
  if (!valid_namespace(namespace_name)) co_return fail(errc::namespace_not_found, "Namespace does not exist");
  auto path = namespace_path(namespace_name);
  auto got = co_await _configuration.get(path);
  if (!got) co_return store_error(got.error());
  if (!got.value()) co_return fail(errc::namespace_not_found, "Namespace does not exist");
  auto topics = co_await _local.children(persistent_dir("/managed-ledgers", namespace_name));
  if (!topics) co_return store_error(topics.error());
  auto partitioned = co_await _configuration.children(persistent_dir("/admin/partitioned-topics", namespace_name));
  if (!partitioned) co_return store_error(partitioned.error());
  if (!topics.value().empty() || !partitioned.value().empty()) {
    co_return fail(errc::conflict, "Cannot delete non empty namespace");
  }
  auto removed = co_await _configuration.remove_recursive(path);
  if (!removed) co_return store_error(removed.error());
  // The empty directories that topics left behind.
  auto ledgers = co_await _local.remove_recursive(fmt::format("/managed-ledgers/{}", namespace_name));
  if (!ledgers) co_return store_error(ledgers.error());
  auto partitioned_dir =
      co_await _configuration.remove_recursive(fmt::format("/admin/partitioned-topics/{}", namespace_name));
  if (!partitioned_dir) co_return store_error(partitioned_dir.error());
  co_return success();
}

awaitable<result<std::optional<retention_policies>>> namespace_resources::get_retention(std::string namespace_name) {
  auto policies = co_await get_policies(std::move(namespace_name));
  if (!policies) co_return fail(std::move(policies).error());
  auto it = policies.value().find("retention_policies");
  if (it == policies.value().end() || it->is_null()) co_return std::optional<retention_policies>();
  MAGNETAR_CO_TRY(retention, retention_from_json(*it));
  co_return std::optional<retention_policies>(retention);
}

awaitable<result<void>> namespace_resources::set_retention(std::string namespace_name, retention_policies retention) {
  std::function<result<void>(json&)> change = [retention](json& policies) -> result<void> {
    policies["retention_policies"] = to_json(retention);
    return success();
  };
  co_return co_await update_policies(std::move(namespace_name), std::move(change));
}

awaitable<result<void>> namespace_resources::create_partitioned(wire::topic_name topic, int partitions) {
  if (partitions < 1) co_return fail(errc::invalid_request, "Number of partitions should be more than 0");
  auto exists = co_await namespace_exists(topic.namespace_name());
  if (!exists) co_return fail(std::move(exists).error());
  if (!exists.value()) co_return fail(errc::namespace_not_found, "Namespace does not exist");
  auto ledger = co_await managed_ledger_exists(topic);
  if (!ledger) co_return fail(std::move(ledger).error());
  if (ledger.value()) co_return fail(errc::conflict, "This topic already exists");
  json metadata{{"partitions", partitions}};
  auto put = co_await _configuration.put(partitioned_topic_path(topic), metadata.dump(), -1);
  if (!put && put.error() == meta::errc::bad_version) co_return fail(errc::conflict, "This topic already exists");
  if (!put) co_return store_error(put.error());
  co_return success();
}

awaitable<result<int>> namespace_resources::partitioned_partitions(wire::topic_name topic) {
  auto path = partitioned_topic_path(topic);
  auto got = co_await _configuration.get(path);
  if (!got) co_return store_error(got.error());
  if (!got.value()) co_return 0;
  MAGNETAR_CO_TRY(metadata, parse_stored(path, got.value()->value));
  auto it = metadata.find("partitions");
  if (it == metadata.end() || !it->is_number_integer()) {
    co_return fail(errc::metadata_error, fmt::format("{} has no integer 'partitions'", path));
  }
  co_return it->get<int>();
}

awaitable<result<void>> namespace_resources::update_partitions(wire::topic_name topic, int from, int to) {
  if (to <= from) co_return fail(errc::invalid_request, "The number of partitions can only grow");
  auto path = partitioned_topic_path(topic);
  auto got = co_await _configuration.get(path);
  if (!got) co_return store_error(got.error());
  if (!got.value()) co_return fail(errc::topic_not_found, "Partitioned topic does not exist");
  MAGNETAR_CO_TRY(metadata, parse_stored(path, got.value()->value));
  auto current = metadata.find("partitions");
  if (current == metadata.end() || !current->is_number_integer() || current->get<int>() != from)
    co_return fail(errc::conflict, "The partitions changed concurrently");
  metadata["partitions"] = to;
  auto put = co_await _configuration.put(path, metadata.dump(), got.value()->st.version);
  if (!put && put.error() == meta::errc::bad_version)
    co_return fail(errc::conflict, "The partitions changed concurrently");
  if (!put) co_return store_error(put.error());
  co_return success();
}

awaitable<result<void>> namespace_resources::delete_partitioned(wire::topic_name topic) {
  auto removed = co_await _configuration.remove(partitioned_topic_path(topic), std::nullopt);
  if (!removed && removed.error() == meta::errc::not_found) {
    co_return fail(errc::topic_not_found, "Partitioned topic does not exist");
  }
  if (!removed) co_return store_error(removed.error());
  co_return success();
}

awaitable<result<std::vector<std::string>>> namespace_resources::list_partitioned(std::string namespace_name) {
  if (!valid_namespace(namespace_name)) co_return fail(errc::namespace_not_found, "Namespace does not exist");
  auto names = co_await _configuration.children(persistent_dir("/admin/partitioned-topics", namespace_name));
  if (!names) co_return store_error(names.error());
  std::vector<std::string> out;
  for (const auto& name : names.value()) out.push_back(fmt::format("persistent://{}/{}", namespace_name, name));
  co_return out;
}

awaitable<result<bool>> namespace_resources::managed_ledger_exists(wire::topic_name topic) {
  auto exists = co_await _local.exists(fmt::format("/managed-ledgers/{}", topic.persistence_name()));
  if (!exists) co_return store_error(exists.error());
  co_return exists.value();
}

}  // namespace magnetar::broker
