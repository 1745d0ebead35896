// plan_cluster(): names, addresses and ports of a launched cluster's nodes; the URLs the
// workloads get; and the configuration files made for each node.
#include "perf/cluster/cluster_layout.h"
#include "perf/cluster/node_configs.h"

#include <gtest/gtest.h>

#include <set>

namespace magnetar::perf {
namespace {

cluster_settings two_brokers_three_bookies() {
  cluster_settings cluster;
  cluster.brokers.replicas = 2;
  cluster.bookies.replicas = 3;
  return cluster;
}

TEST(cluster_layout, nodes_in_namespaces_have_addresses_of_their_own_and_upstream_ports) {
  const auto layout = plan_cluster(two_brokers_three_bookies(), std::nullopt);
  ASSERT_EQ(layout.nodes.size(), 1u + 3u + 2u + 3u);
  EXPECT_EQ(layout.nodes[0].name, "zookeeper-0");
  EXPECT_EQ(layout.nodes[0].address, "10.99.1.2");
  EXPECT_EQ(layout.nodes[0].port, 2181);
  EXPECT_EQ(layout.node("bookie-2").address, "10.99.4.2");
  EXPECT_EQ(layout.node("bookie-2").port, 3181);
  EXPECT_EQ(layout.node("broker-1").address, "10.99.6.2");
  EXPECT_EQ(layout.node("broker-1").http_port, 8080);
  EXPECT_EQ(layout.node("monitor").role, node_role::clients);
  EXPECT_EQ(layout.admin_url(), "http://10.99.5.2:8080");
  EXPECT_EQ(layout.zookeeper_connect(), "10.99.1.2:2181");
}

TEST(cluster_layout, bootstrap_all_names_every_broker) {
  auto cluster = two_brokers_three_bookies();
  EXPECT_EQ(plan_cluster(cluster, std::nullopt).service_url(), "pulsar://10.99.5.2:6650");
  cluster.bootstrap = bootstrap_brokers::all;
  EXPECT_EQ(plan_cluster(cluster, std::nullopt).service_url(), "pulsar://10.99.5.2:6650,10.99.6.2:6650");
}

TEST(cluster_layout, on_loopback_every_port_is_distinct) {
  int next = 40000;
  auto cluster = two_brokers_three_bookies();
  cluster.zookeeper_replicas = 3;
  const auto layout = plan_cluster(cluster, [&] { return next++; });
  std::set<int> ports;
  int count = 0;
  for (const auto& node : layout.nodes) {
    EXPECT_EQ(node.address, "127.0.0.1");
    for (int port : {node.port, node.http_port, node.quorum_port, node.election_port}) {
      if (port == 0) continue;
      ports.insert(port);
      ++count;
    }
  }
  EXPECT_EQ(static_cast<int>(ports.size()), count);
  EXPECT_FALSE(layout.in_namespaces);
}

TEST(node_configs, an_ensemble_lists_every_server) {
  auto cluster = two_brokers_three_bookies();
  cluster.zookeeper_replicas = 3;
  const auto layout = plan_cluster(cluster, std::nullopt);
  const auto text = zookeeper_config(layout, layout.node("zookeeper-1"), "/data");
  EXPECT_NE(text.find("clientPortAddress=10.99.2.2\n"), std::string::npos) << text;
  EXPECT_NE(text.find("server.1=10.99.1.2:2888:3888\n"), std::string::npos) << text;
  EXPECT_NE(text.find("server.3=10.99.3.2:2888:3888\n"), std::string::npos) << text;
}

TEST(node_configs, a_single_server_lists_none) {
  const auto layout = plan_cluster(two_brokers_three_bookies(), std::nullopt);
  EXPECT_EQ(zookeeper_config(layout, layout.node("zookeeper-0"), "/data").find("server."), std::string::npos);
}

TEST(node_configs, bookies_name_every_zookeeper_server_the_bookkeeper_way) {
  auto cluster = two_brokers_three_bookies();
  cluster.zookeeper_replicas = 3;
  const auto layout = plan_cluster(cluster, std::nullopt);
  const auto text = bookie_config(layout, layout.node("bookie-0"), "/d", {});
  EXPECT_NE(text.find("metadataServiceUri=zk+null://10.99.1.2:2181;10.99.2.2:2181;10.99.3.2:2181/ledgers\n"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("advertisedAddress=10.99.4.2\n"), std::string::npos) << text;
}

TEST(node_configs, the_scenarios_broker_settings_come_after_the_launchers) {
  const auto layout = plan_cluster(two_brokers_three_bookies(), std::nullopt);
  const auto env =
      conf_from_env({{"managedLedgerDefaultEnsembleSize", "3"}, {"PULSAR_MEM", "-Xmx1g"}}, "cluster.brokers.env");
  const auto text = broker_config(layout, layout.node("broker-0"), env);
  const auto launcher_default = text.find("managedLedgerDefaultEnsembleSize=2\n");
  const auto users = text.find("managedLedgerDefaultEnsembleSize=3\n");
  ASSERT_NE(launcher_default, std::string::npos) << text;
  ASSERT_NE(users, std::string::npos) << text;
  EXPECT_LT(launcher_default, users);
  EXPECT_EQ(env.ignored, std::vector<std::string>{"PULSAR_MEM"});
  EXPECT_NE(text.find("metadataStoreUrl=zk:10.99.1.2:2181\n"), std::string::npos) << text;
}

TEST(node_configs, one_bookie_gets_a_quorum_of_one) {
  auto cluster = two_brokers_three_bookies();
  cluster.bookies.replicas = 1;
  const auto layout = plan_cluster(cluster, std::nullopt);
  const auto text = broker_config(layout, layout.node("broker-0"), {});
  EXPECT_NE(text.find("managedLedgerDefaultAckQuorum=1\n"), std::string::npos) << text;
}

}  // namespace
}  // namespace magnetar::perf
