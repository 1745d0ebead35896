// admin_api: what geo-replication needs of the admin API, at upstream's paths:
//   PUT    /admin/v2/clusters/{cluster}                        ClusterData: a remote cluster's URLs
//   POST   /admin/v2/clusters/{cluster}                        changes them
//   DELETE /admin/v2/clusters/{cluster}                        412 while a tenant allows it
//   GET    /admin/v2/namespaces/{tenant}/{namespace}/replication   replication_clusters
//   POST   /admin/v2/namespaces/{tenant}/{namespace}/replication   ["a", "b"]: the clusters
//          that hold the namespace's topics; each must exist (403 "Invalid cluster id")
//          and be allowed by the tenant (403), as upstream answers.
// The clusters' topics start or stop replicating when their brokers next read the
// policies (this broker's at once).
#include "broker/admin/admin_api.h"
#include "broker/admin/admin_errors.h"
#include "broker/admin/stats_json.h"
#include "broker/api/errc.h"

#include <fmt/format.h>

#include <algorithm>
#include <array>

namespace magnetar::broker::admin {

using nlohmann::json;

namespace {

constexpr std::array<const char*, 4> cluster_url_keys{"serviceUrl", "brokerServiceUrl", "serviceUrlTls",
                                                      "brokerServiceUrlTls"};

// ClusterData needs at least one URL to reach the cluster by (a TLS-only cluster has only
// the Tls ones).
result<json> cluster_data_from(const incoming_request& request) {
  MAGNETAR_TRY(body, parse_json(request.body));
  if (!body.is_object()) return fail(errc::invalid_request, "ClusterData must be a JSON object");
  for (const char* key : cluster_url_keys) {
    if (body.contains(key) && !body[key].is_string()) {
      return fail(errc::invalid_request, fmt::format("{} must be a string", key));
    }
  }
  const bool reachable =
      std::ranges::any_of(cluster_url_keys, [&](const char* key) { return !body.value(key, "").empty(); });
  if (!reachable) {
    return fail(errc::invalid_request, "ClusterData needs serviceUrl, brokerServiceUrl or their Tls twins");
  }
  return body;
}

}  // namespace

awaitable<http_response> admin_api::create_cluster(incoming_request request) {
  if (auto bad = detail::invalid_names(request)) co_return *bad;
  auto data = cluster_data_from(request);
  if (!data) co_return error_to_response(data.error());
  auto created = co_await _resources.create_cluster(request.param("cluster"), std::move(data).value());
  if (!created) co_return error_to_response(created.error());
  co_return no_content();
}

awaitable<http_response> admin_api::update_cluster(incoming_request request) {
  if (auto bad = detail::invalid_names(request)) co_return *bad;
  auto data = cluster_data_from(request);
  if (!data) co_return error_to_response(data.error());
  auto existing = co_await _resources.get_cluster(request.param("cluster"));
  if (!existing) co_return error_to_response(existing.error());
  if (!existing.value()) co_return error_response(404, "Cluster does not exist");
  auto updated = co_await _resources.update_cluster(request.param("cluster"), std::move(data).value());
  if (!updated) co_return error_to_response(updated.error());
  co_return no_content();
}

awaitable<http_response> admin_api::delete_cluster(incoming_request request) {
  if (auto bad = detail::invalid_names(request)) co_return *bad;
  auto existing = co_await _resources.get_cluster(request.param("cluster"));
  if (!existing) co_return error_to_response(existing.error());
  if (!existing.value()) co_return error_response(404, "Cluster does not exist");
  auto deleted = co_await _resources.delete_cluster(request.param("cluster"));
  if (!deleted) co_return error_to_response(deleted.error());
  co_return no_content();
}

awaitable<http_response> admin_api::set_replication_clusters(incoming_request request) {
  if (auto bad = detail::invalid_names(request)) co_return *bad;
  auto body = parse_json(request.body);
  if (!body) co_return error_to_response(body.error());
  if (!body.value().is_array() || body.value().empty()) {
    co_return error_response(400, "Expected a non-empty list of cluster names, e.g. [\"us-east\", \"us-west\"]");
  }
  std::vector<std::string> clusters;
  for (const auto& name : body.value()) {
    if (!name.is_string()) co_return error_response(400, "Cluster names are strings");
    if (std::find(clusters.begin(), clusters.end(), name.get<std::string>()) == clusters.end()) {
      clusters.push_back(name.get<std::string>());
    }
  }
  const auto ns = detail::namespace_from(request);
  auto tenant = co_await _resources.get_tenant(std::string(ns.substr(0, ns.find('/'))));
  if (!tenant) co_return error_to_response(tenant.error());
  const auto& allowed = tenant.value().allowed_clusters;
  for (const auto& cluster : clusters) {
    auto data = co_await _resources.get_cluster(cluster);
    if (!data) co_return error_to_response(data.error());
    if (!data.value()) co_return error_response(403, fmt::format("Invalid cluster id: {}", cluster));
    if (std::find(allowed.begin(), allowed.end(), cluster) == allowed.end()) {
      co_return error_response(403, fmt::format("Cluster [{}] is not in the list of allowed clusters list for tenant "
                                                "[{}]",
                                                cluster, ns.substr(0, ns.find('/'))));
    }
  }
  std::function<result<void>(json&)> change = [&clusters](json& policies) -> result<void> {
    policies["replication_clusters"] = clusters;
    return success();
  };
  auto set = co_await _resources.update_policies(ns, std::move(change));
  if (!set) co_return error_to_response(set.error());
  co_await notify_policies_changed(request);
  co_return no_content();
}

}  // namespace magnetar::broker::admin
