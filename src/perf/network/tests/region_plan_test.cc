// Impairments between the regions of a geo-replicated cluster (cluster.remote): the
// plan over the launcher's real layout reaches every remote node, and the router's rules
// name their addresses.
#include "perf/cluster/cluster_layout.h"
#include "perf/network/impairment_plan.h"
#include "perf/network/router_rules.h"

#include <gtest/gtest.h>

#include <algorithm>

namespace magnetar::perf {
namespace {

// One broker, bookie and ZooKeeper server in each cluster.
cluster_settings two_regions() {
  cluster_settings cluster;
  cluster.remote.emplace();
  return cluster;
}

// The network nodes cluster_network makes for the layout: each at its position.
std::vector<network_node> nodes_of(const cluster_layout& layout) {
  std::vector<network_node> nodes;
  for (const auto& node : layout.nodes) {
    nodes.push_back({.name = node.name,
                     .address = node.address,
                     .namespace_name = "mg-test-" + node.name,
                     .router_link = router_link_name(node.name)});
  }
  return nodes;
}

result<std::vector<planned_impairment>> plan_between_regions(impairment_kind kind) {
  network_settings network;
  network.impairments.push_back(
      {.name = "geo",
       .kind = kind,
       .from = {"local-region"},
       .to = {"remote-region"},
       .both_ways = true,
       .delay = kind == impairment_kind::condition ? std::chrono::milliseconds(40) : std::chrono::microseconds(0)});
  const auto cluster = two_regions();
  return plan_impairments(network, cluster, nodes_of(plan_cluster(cluster, std::nullopt)));
}

TEST(region_plan, every_pair_crosses_between_the_regions_both_ways) {
  auto plan = plan_between_regions(impairment_kind::condition);
  ASSERT_TRUE(plan) << plan.error();
  ASSERT_EQ(plan.value().size(), 1u);
  const auto& pairs = plan.value()[0].pairs;
  // 5 local nodes (ZooKeeper, bookie, broker, gateways, applications) and 4 remote ones
  // (ZooKeeper, bookie, broker, applications), each way.
  EXPECT_EQ(pairs.size(), 5u * 4u * 2u);
  for (const auto& pair : pairs) {
    EXPECT_NE(pair.from.name.starts_with("remote-"), pair.to.name.starts_with("remote-"))
        << pair.from.name << " -> " << pair.to.name;
    EXPECT_NE(pair.from.name, "monitor");
    EXPECT_NE(pair.to.name, "monitor");
  }
}

TEST(region_plan, a_partition_between_the_regions_drops_the_remote_addresses) {
  auto plan = plan_between_regions(impairment_kind::partition);
  ASSERT_TRUE(plan) << plan.error();
  const auto script = router_ruleset({&plan.value()[0]});
  // broker-0 (10.99.3.2) to remote-broker-0 (10.99.9.2), and back.
  EXPECT_NE(script.find("10.99.3.2 . 10.99.9.2"), std::string::npos) << script;
  EXPECT_NE(script.find("10.99.9.2 . 10.99.3.2"), std::string::npos) << script;
  // The monitor (10.99.6.2) keeps its view of both.
  EXPECT_EQ(script.find("10.99.6.2"), std::string::npos) << script;
}

}  // namespace
}  // namespace magnetar::perf
