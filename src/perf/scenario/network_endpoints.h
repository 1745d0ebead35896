// network_endpoints: what the endpoint names of a scenario's network impairments mean in
// its cluster: the nodes the launcher makes (zookeeper-N, bookie-N, broker-N, gateways,
// applications, and with cluster.remote remote-zookeeper-N, remote-bookie-N,
// remote-broker-N, remote-applications) behind each name.
//
//   endpoint_nodes("bookies", cluster)         // {"bookie-0", "bookie-1", "bookie-2"}
//   endpoint_nodes("clients", cluster)         // {"gateways", "applications"}
//   endpoint_nodes("remote-region", cluster)   // every remote-* node
//
// Stateless, thread-safe.
#pragma once

#include "base/result.h"
#include "perf/scenario/settings.h"

#include <string>
#include <string_view>
#include <vector>

namespace magnetar::perf {

// The names a scenario may use, for messages ("broker-N" stands for each broker).
const std::vector<std::string_view>& endpoint_names();

// The cluster's nodes that `endpoint` names, in the launcher's order; an invalid_argument
// error that says why otherwise (unknown, out of this cluster's range, a remote cluster's).
result<std::vector<std::string>> endpoint_nodes(std::string_view endpoint, const cluster_settings& cluster);

}  // namespace magnetar::perf
