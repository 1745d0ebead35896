#include "perf/cluster/cluster_network.h"

#include "base/assert.h"
#include "base/errc.h"
#include "perf/cluster/network_namespace.h"

#include <fmt/format.h>

#include <unistd.h>
#include <utility>

namespace magnetar::perf {

namespace {

constexpr std::string_view subnet_prefix = "10.99";

result<void> ip(std::vector<std::string> args) {
  args.insert(args.begin(), "ip");
  MAGNETAR_TRY(run_tool(args));
  return success();
}

// One node's namespace and its link to the router.
result<void> wire_node(const std::string& router, const network_node& node, int position) {
  const auto& ns = node.namespace_name;
  MAGNETAR_TRY(ip({"netns", "add", ns}));
  MAGNETAR_TRY(
      ip({"-n", router, "link", "add", node.router_link, "type", "veth", "peer", "name", "eth0", "netns", ns}));
  MAGNETAR_TRY(ip({"-n", router, "addr", "add", router_address(position) + "/24", "dev", node.router_link}));
  MAGNETAR_TRY(ip({"-n", router, "link", "set", node.router_link, "up"}));
  MAGNETAR_TRY(ip({"-n", ns, "addr", "add", node.address + "/24", "dev", "eth0"}));
  MAGNETAR_TRY(ip({"-n", ns, "link", "set", "eth0", "up"}));
  MAGNETAR_TRY(ip({"-n", ns, "link", "set", "lo", "up"}));
  MAGNETAR_TRY(ip({"-n", ns, "route", "add", "default", "via", router_address(position)}));
  return success();
}

}  // namespace

std::string router_link_name(std::string_view node) {
  std::string name(node);
  // A remote cluster's nodes (remote-zookeeper-0, remote-applications) would pass the
  // 15 characters a Linux interface name may have: shorter forms of their words.
  for (const auto& [word, short_form] :
       {std::pair<std::string_view, std::string_view>{"remote-", "r"}, {"zookeeper", "zk"}, {"applications", "apps"}}) {
    if (name.size() + 2 <= max_link_name) break;
    for (auto at = name.find(word); at != std::string::npos; at = name.find(word, at + short_form.size())) {
      name.replace(at, word.size(), short_form);
    }
  }
  return "v-" + name;
}

std::string node_address(int position) { return fmt::format("{}.{}.2", subnet_prefix, position); }
std::string router_address(int position) { return fmt::format("{}.{}.1", subnet_prefix, position); }

std::string cluster_network::unavailable_reason(std::string_view prefix) {
  const auto probe = fmt::format("{}probe-{}", prefix, ::getpid());
  if (auto made = ip({"netns", "add", probe}); !made) return made.error().detail();
  if (auto deleted = ip({"netns", "delete", probe}); !deleted) return deleted.error().detail();
  return {};
}

result<cluster_network> cluster_network::create(std::string prefix, const std::vector<std::string>& names) {
  std::vector<network_node> nodes;
  int position = 0;
  for (const auto& name : names) {
    ++position;
    nodes.push_back({.name = name,
                     .address = node_address(position),
                     .namespace_name = prefix + name,
                     .router_link = router_link_name(name)});
  }
  const auto router = prefix + "router";
  MAGNETAR_TRY(ip({"netns", "add", router}));
  // From here the object owns what exists, and deletes it on a failure below.
  cluster_network network(router, {});
  MAGNETAR_TRY(ip({"-n", router, "link", "set", "lo", "up"}));
  // The router forwards between its links; nothing else routes in it.
  MAGNETAR_TRY(run_tool({"ip", "netns", "exec", router, "sysctl", "-qw", "net.ipv4.ip_forward=1"}));
  for (std::size_t i = 0; i < nodes.size(); ++i) {
    network._nodes.push_back(nodes[i]);
    MAGNETAR_TRY(wire_node(router, nodes[i], static_cast<int>(i) + 1));
  }
  return network;
}

cluster_network::cluster_network(cluster_network&& other) noexcept
    : _router(std::exchange(other._router, {})), _nodes(std::exchange(other._nodes, {})) {}

cluster_network::~cluster_network() { (void)destroy(); }

const network_node& cluster_network::node(std::string_view name) const {
  for (const auto& node : _nodes) {
    if (node.name == name) return node;
  }
  MAGNETAR_ASSERT(false, "no node {} in the cluster's network", name);
  return _nodes.front();
}

result<void> cluster_network::destroy() {
  std::vector<std::string> names;
  for (const auto& node : _nodes) names.push_back(node.namespace_name);
  if (!_router.empty()) names.push_back(_router);
  _nodes.clear();
  _router.clear();
  return delete_network_namespaces(names);
}

result<void> delete_network_namespaces(const std::vector<std::string>& names) {
  result<void> outcome = success();
  for (const auto& name : names) {
    std::error_code ec;
    if (!std::filesystem::exists("/run/netns/" + name, ec)) continue;
    auto deleted = ip({"netns", "delete", name});
    if (!deleted && outcome) outcome = deleted.error();
  }
  return outcome;
}

}  // namespace magnetar::perf
