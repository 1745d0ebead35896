// replication_setup: what the launcher asks the admin API once both clusters of a
// geo-replicated run are up (cluster.remote): the tenant `public` allowed in both
// clusters, the namespace `public/default` replicated to both, and its retention. Upstream's
// paths and JSON, so any Pulsar-compatible broker of either cluster can be asked (they
// share the configuration store).
//
//   auto done = enable_replication(admin, {"local", "remote"}, 60);
//
// Thread-safety: free functions; enable_replication blocks for up to 10 s a request.
#pragma once

#include "base/result.h"
#include "http/url.h"

#include <string>
#include <vector>

namespace magnetar::perf {

// The bodies: {"adminRoles":[],"allowedClusters":[...]}, ["local","remote"], and
// {"retentionTimeInMinutes":N,"retentionSizeInMB":-1} (no size limit).
std::string tenant_clusters_body(const std::vector<std::string>& clusters);
std::string replication_clusters_body(const std::vector<std::string>& clusters);
std::string retention_body(int minutes);

// POST /admin/v2/tenants/public, POST /admin/v2/namespaces/public/default/replication and,
// when `retention_minutes` > 0, POST .../retention; the first refusal, naming the
// request, the status and the broker's answer.
result<void> enable_replication(const http::url& admin, const std::vector<std::string>& clusters,
                                int retention_minutes);

}  // namespace magnetar::perf
