// cluster_network: the network a launched cluster runs on, made of network namespaces and
// no container engine. Each node (zookeeper-0, bookie-1, broker-0, gateways, ...) is a
// namespace of its own with one veth, `eth0`, whose peer sits in a router namespace:
//
//   node namespace <prefix><name>          router namespace <prefix>router
//   eth0 10.99.<i>.2/24  <--- veth --->    v-<name> 10.99.<i>.1/24, ip_forward=1
//
// Every packet between two nodes crosses the router, where the network conditions and
// faults (next to come) act on it: per-pair filters, shaping and forwarders all attach
// there, by the stable names and addresses above (i is the node's position in the list,
// from 1). Nothing is attached to the launcher's own namespace: nodes reach only each
// other, and the launcher reaches them from a node namespace of its own (`monitor`, see
// network_namespace.h).
//
// Deleting a namespace takes its veth with it (and any filter or qdisc in it), so
// teardown is deleting the namespaces. The destructor does it unless detach() was called
// (a cluster left running: `magnetar-perf cluster down` deletes them by name later).
//
// Thread-safety: one owner.
#pragma once

#include "base/result.h"

#include <cstddef>
#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

namespace magnetar::perf {

struct network_node {
  std::string name;            // "broker-0"
  std::string address;         // "10.99.3.2"
  std::string namespace_name;  // "<prefix>broker-0"
  std::string router_link;     // "v-broker-0", in the router namespace
  std::filesystem::path namespace_file() const { return "/run/netns/" + namespace_name; }
};

// The router side's interface of a node: "v-<name>", in shorter words (remote- as r,
// zookeeper as zk, applications as apps) where that would pass an interface name's 15
// characters, until it fits: v-remote-zookeeper-0 is v-rzookeeper-0.
inline constexpr std::size_t max_link_name = 15;
std::string router_link_name(std::string_view node);

// The address of the node at `position` (from 1) and of its router side.
std::string node_address(int position);
std::string router_address(int position);

class cluster_network {
 public:
  // Why this process cannot make network namespaces (one line: no `ip`, no privilege),
  // found by making and deleting one; empty when it can.
  static std::string unavailable_reason(std::string_view prefix);

  // The router and one namespace per name, wired as above. On failure, what was made is
  // deleted again.
  static result<cluster_network> create(std::string prefix, const std::vector<std::string>& names);

  cluster_network(cluster_network&& other) noexcept;
  cluster_network& operator=(cluster_network&&) = delete;
  cluster_network(const cluster_network&) = delete;
  ~cluster_network();

  const std::vector<network_node>& nodes() const { return _nodes; }
  // The node of that name; it must exist.
  const network_node& node(std::string_view name) const;
  const std::string& router_namespace() const { return _router; }

  // Deletes every namespace (the nodes', then the router's); the first failure, after
  // trying them all.
  result<void> destroy();
  // Leaves the namespaces in place when this object goes.
  void detach() { _nodes.clear(), _router.clear(); }

 private:
  cluster_network(std::string router, std::vector<network_node> nodes)
      : _router(std::move(router)), _nodes(std::move(nodes)) {}

  std::string _router;
  std::vector<network_node> _nodes;
};

// Deletes the named namespaces that exist (teardown of a cluster left running, or of a
// launcher that was killed); the first failure, after trying them all.
result<void> delete_network_namespaces(const std::vector<std::string>& names);

}  // namespace magnetar::perf
