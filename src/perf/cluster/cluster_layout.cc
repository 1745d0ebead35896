#include "perf/cluster/cluster_layout.h"

#include "base/assert.h"
#include "perf/cluster/cluster_network.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>

namespace magnetar::perf {

namespace {

// Upstream's defaults, used in namespaces where every node has its own address.
constexpr int zookeeper_client_port = 2181;
constexpr int zookeeper_quorum_port = 2888;
constexpr int zookeeper_election_port = 3888;
constexpr int bookie_port = 3181;
constexpr int bookie_http_port = 8000;
constexpr int broker_port = 6650;
constexpr int broker_http_port = 8080;

}  // namespace

std::string_view role_name(node_role role) {
  switch (role) {
    case node_role::zookeeper: return "zookeeper";
    case node_role::bookie: return "bookie";
    case node_role::broker: return "broker";
    case node_role::clients: return "clients";
  }
  return "clients";
}

bool cluster_layout::has_remote() const {
  return std::any_of(nodes.begin(), nodes.end(), [](const cluster_node& node) { return node.remote; });
}

std::vector<const cluster_node*> cluster_layout::of_role(node_role role, bool remote) const {
  std::vector<const cluster_node*> out;
  for (const auto& node : nodes) {
    if (node.role == role && node.remote == remote) out.push_back(&node);
  }
  return out;
}

const cluster_node& cluster_layout::node(std::string_view name) const {
  for (const auto& node : nodes) {
    if (node.name == name) return node;
  }
  MAGNETAR_ASSERT(false, "no node {} in the cluster", name);
  return nodes.front();
}

std::string cluster_layout::zookeeper_connect(bool remote) const {
  std::vector<std::string> servers;
  for (const auto* node : of_role(node_role::zookeeper, remote))
    servers.push_back(fmt::format("{}:{}", node->address, node->port));
  return fmt::format("{}", fmt::join(servers, ","));
}

std::string cluster_layout::service_url(bool remote) const {
  const auto brokers = of_role(node_role::broker, remote);
  std::vector<std::string> hosts;
  for (const auto* node : brokers) {
    hosts.push_back(fmt::format("{}:{}", node->address, node->port));
    if (bootstrap == bootstrap_brokers::single) break;
  }
  return fmt::format("pulsar://{}", fmt::join(hosts, ","));
}

std::string cluster_layout::admin_url(bool remote) const {
  const auto* first = of_role(node_role::broker, remote).front();
  return fmt::format("http://{}:{}", first->address, first->http_port);
}

cluster_layout plan_cluster(const cluster_settings& cluster, const std::optional<std::function<int()>>& free_port) {
  cluster_layout layout{.bootstrap = cluster.bootstrap, .in_namespaces = !free_port};
  const auto port = [&](int in_namespace) { return free_port ? (*free_port)() : in_namespace; };
  const auto add = [&](node_role role, int index, std::string name, bool remote = false) {
    cluster_node node{.name = std::move(name), .role = role, .index = index, .remote = remote};
    node.address = free_port ? "127.0.0.1" : node_address(static_cast<int>(layout.nodes.size()) + 1);
    switch (role) {
      case node_role::zookeeper:
        node.port = port(zookeeper_client_port);
        node.quorum_port = port(zookeeper_quorum_port);
        node.election_port = port(zookeeper_election_port);
        break;
      case node_role::bookie:
        node.port = port(bookie_port);
        node.http_port = port(bookie_http_port);
        break;
      case node_role::broker:
        node.port = port(broker_port);
        node.http_port = port(broker_http_port);
        break;
      case node_role::clients: break;
    }
    layout.nodes.push_back(std::move(node));
  };
  for (int i = 0; i < cluster.zookeeper_replicas; ++i) add(node_role::zookeeper, i, fmt::format("zookeeper-{}", i));
  for (int i = 0; i < cluster.bookies.replicas; ++i) add(node_role::bookie, i, fmt::format("bookie-{}", i));
  for (int i = 0; i < cluster.brokers.replicas; ++i) add(node_role::broker, i, fmt::format("broker-{}", i));
  for (auto name : client_nodes) add(node_role::clients, 0, std::string(name));
  if (const auto& remote = cluster.remote) {
    for (int i = 0; i < remote->zookeeper_replicas; ++i) {
      add(node_role::zookeeper, i, fmt::format("remote-zookeeper-{}", i), true);
    }
    for (int i = 0; i < remote->bookies.replicas; ++i)
      add(node_role::bookie, i, fmt::format("remote-bookie-{}", i), true);
    for (int i = 0; i < remote->brokers.replicas; ++i)
      add(node_role::broker, i, fmt::format("remote-broker-{}", i), true);
    add(node_role::clients, 0, std::string(remote_applications_node), true);
  }
  return layout;
}

}  // namespace magnetar::perf
