// cluster_layout: what a launched cluster is made of, decided before anything starts: its
// nodes (ZooKeeper servers, bookies, brokers, and the namespaces of the clients and of the
// launcher's monitoring), each with an address and ports, and the URLs the workloads get.
//
//   auto layout = plan_cluster(settings.cluster, std::nullopt);  // in namespaces
//   layout.service_url();  // pulsar://10.99.5.2:6650
//
// In namespaces every node has an address of its own (cluster_network.h's rule) and
// upstream's default ports; without them (no privilege) every node is on 127.0.0.1 and
// each port comes from `free_port`.
//
// Thread-safety: plain values.
#pragma once

#include "perf/scenario/settings.h"

#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace magnetar::perf {

enum class node_role { zookeeper, bookie, broker, clients };

std::string_view role_name(node_role role);

struct cluster_node {
  // zookeeper-0, bookie-0, broker-0, gateways, applications, monitor; a remote cluster's
  // remote-zookeeper-0, remote-bookie-0, remote-broker-0, remote-applications.
  std::string name;
  node_role role = node_role::clients;
  int index = 0;        // among its cluster's nodes of its role
  bool remote = false;  // of the remote cluster (cluster.remote), not the first
  std::string address;
  // The main port (ZooKeeper's client port, the bookie's, the broker's binary protocol),
  // the HTTP port (bookie's metrics, broker's admin API), ZooKeeper's quorum and election
  // ports; 0 where the role has none.
  int port = 0;
  int http_port = 0;
  int quorum_port = 0;
  int election_port = 0;
};

struct cluster_layout {
  // ZooKeeper servers, bookies, brokers, then the clients'; then the remote cluster's
  // ZooKeeper servers, bookies, brokers and applications, so that a remote cluster leaves
  // the first cluster's addresses as they are without it.
  std::vector<cluster_node> nodes;
  bootstrap_brokers bootstrap = bootstrap_brokers::single;
  bool in_namespaces = true;

  bool has_remote() const;
  // The first cluster's nodes of the role, or the remote cluster's.
  std::vector<const cluster_node*> of_role(node_role role, bool remote = false) const;
  const cluster_node& node(std::string_view name) const;  // it must exist
  // host:port,host:port of the cluster's ZooKeeper servers (the first cluster's is also
  // the configuration store that a remote cluster shares).
  std::string zookeeper_connect(bool remote = false) const;
  // pulsar://broker-0 (bootstrap single) or pulsar://broker-0,broker-1,... (all).
  std::string service_url(bool remote = false) const;
  // http:// of the cluster's first broker's admin API (redirects reach the others).
  std::string admin_url(bool remote = false) const;
};

// The namespaces of the clients: the gateways, the applications, and the launcher's
// monitoring (topic stats, metrics), kept apart so that an impairment on the clients'
// links does not blind the report.
inline constexpr std::string_view client_nodes[] = {"gateways", "applications", "monitor"};
// The remote cluster's applications, in a namespace of their own.
inline constexpr std::string_view remote_applications_node = "remote-applications";

// `free_port`: nullopt in namespaces; otherwise where loopback ports come from.
cluster_layout plan_cluster(const cluster_settings& cluster, const std::optional<std::function<int()>>& free_port);

}  // namespace magnetar::perf
