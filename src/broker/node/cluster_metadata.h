// initialize_cluster_metadata: what `magnetar initialize-cluster-metadata` writes (as
// `pulsar initialize-cluster-metadata`) before a cluster's first broker starts: the
// cluster (/admin/clusters/<name>: serviceUrl, brokerServiceUrl, and serviceUrlTls,
// brokerServiceUrlTls when given), the `public` tenant,
// the `public/default` namespace, and the bookies' registration nodes
// (/ledgers/available, /ledgers/available/readonly).
// Idempotent; unlike upstream, which ignores a difference silently, a cluster already
// there with other URLs is refused (errc::conflict), so that a typo can't leave brokers
// advertising one address and the metadata another.
#pragma once

#include "base/result.h"
#include "io/asio.h"
#include "meta/store.h"

#include <string>

namespace magnetar::broker {

struct cluster_metadata {
  std::string cluster;
  std::string web_service_url;         // http://host:port
  std::string broker_service_url;      // pulsar://host:port
  std::string web_service_url_tls;     // https://host:port, or empty
  std::string broker_service_url_tls;  // pulsar+ssl://host:port, or empty
};

awaitable<result<void>> initialize_cluster_metadata(meta::store& store, cluster_metadata metadata);
// A cluster of a geo-replicated deployment: the cluster, tenant and namespace go to the
// configuration store the clusters share (a namespace there already is left alone),
// the bookies' nodes to the cluster's own metadata store.
awaitable<result<void>> initialize_cluster_metadata(meta::store& store, meta::store& configuration,
                                                    cluster_metadata metadata);

}  // namespace magnetar::broker
