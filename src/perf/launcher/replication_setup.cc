#include "perf/launcher/replication_setup.h"

#include "base/errc.h"
#include "http/client.h"

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <chrono>
#include <string_view>

namespace magnetar::perf {

namespace {

constexpr std::string_view tenant_path = "/admin/v2/tenants/public";
constexpr std::string_view namespace_path = "/admin/v2/namespaces/public/default";

result<void> post(const http::url& admin, const std::string& target, const std::string& body) {
  MAGNETAR_TRY(reply, http::call(admin, "POST", target, body,
                                 {.timeout = std::chrono::seconds(10), .server_name = "the admin API"}));
  if (reply.status >= 200 && reply.status < 300) return success();
  return fail(base::errc::io_error, fmt::format("POST {} {}: HTTP {}: {}", target, body, reply.status, reply.body));
}

}  // namespace

std::string tenant_clusters_body(const std::vector<std::string>& clusters) {
  return nlohmann::json{{"adminRoles", nlohmann::json::array()}, {"allowedClusters", clusters}}.dump();
}

std::string replication_clusters_body(const std::vector<std::string>& clusters) {
  return nlohmann::json(clusters).dump();
}

std::string retention_body(int minutes) {
  return nlohmann::json{{"retentionTimeInMinutes", minutes}, {"retentionSizeInMB", -1}}.dump();
}

result<void> enable_replication(const http::url& admin, const std::vector<std::string>& clusters,
                                int retention_minutes) {
  // The tenant first: a namespace replicates only to clusters its tenant is allowed in.
  MAGNETAR_TRY(post(admin, std::string(tenant_path), tenant_clusters_body(clusters)));
  MAGNETAR_TRY(post(admin, fmt::format("{}/replication", namespace_path), replication_clusters_body(clusters)));
  if (retention_minutes > 0) {
    MAGNETAR_TRY(post(admin, fmt::format("{}/retention", namespace_path), retention_body(retention_minutes)));
  }
  return success();
}

}  // namespace magnetar::perf
