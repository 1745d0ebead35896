// A remote cluster (geo-replication) in the layout and the node configurations: its nodes
// after the first cluster's, its own ZooKeeper, and the first's as configuration store.
#include "perf/cluster/cluster_layout.h"
#include "perf/cluster/cluster_network.h"
#include "perf/cluster/node_configs.h"

#include <gtest/gtest.h>

namespace magnetar::perf {
namespace {

// 2 brokers and 3 bookies, and a remote cluster of 1 broker and 2 bookies.
cluster_settings with_remote() {
  cluster_settings cluster;
  cluster.brokers.replicas = 2;
  cluster.bookies.replicas = 3;
  cluster.remote.emplace();
  cluster.remote->brokers.replicas = 1;
  cluster.remote->bookies.replicas = 2;
  return cluster;
}

TEST(remote_layout, the_first_clusters_addresses_stay_as_without_it) {
  const auto layout = plan_cluster(with_remote(), std::nullopt);
  EXPECT_EQ(layout.node("broker-0").address, "10.99.5.2");
  EXPECT_EQ(layout.node("monitor").address, "10.99.9.2");
  EXPECT_EQ(layout.node("remote-zookeeper-0").address, "10.99.10.2");
  EXPECT_EQ(layout.node("remote-broker-0").address, "10.99.13.2");
  EXPECT_EQ(layout.node("remote-applications").address, "10.99.14.2");
  EXPECT_EQ(layout.nodes.size(), 9u + 1u + 2u + 1u + 1u);
}

TEST(remote_layout, roles_and_urls_are_per_cluster) {
  const auto layout = plan_cluster(with_remote(), std::nullopt);
  EXPECT_TRUE(layout.has_remote());
  EXPECT_EQ(layout.of_role(node_role::broker).size(), 2u);
  EXPECT_EQ(layout.of_role(node_role::broker, true).size(), 1u);
  EXPECT_EQ(layout.of_role(node_role::bookie, true).front()->name, "remote-bookie-0");
  EXPECT_EQ(layout.service_url(true), "pulsar://10.99.13.2:6650");
  EXPECT_EQ(layout.admin_url(true), "http://10.99.13.2:8080");
  EXPECT_EQ(layout.zookeeper_connect(true), "10.99.10.2:2181");
  EXPECT_EQ(layout.zookeeper_connect(), "10.99.1.2:2181");
}

TEST(remote_layout, without_it_there_is_no_remote_node) {
  auto cluster = with_remote();
  cluster.remote.reset();
  EXPECT_FALSE(plan_cluster(cluster, std::nullopt).has_remote());
}

TEST(remote_layout, every_router_link_name_fits_an_interface_name) {
  auto cluster = with_remote();
  cluster.remote->zookeeper_replicas = 3;
  cluster.remote->bookies.replicas = 16;
  for (const auto& node : plan_cluster(cluster, std::nullopt).nodes) {
    EXPECT_LE(router_link_name(node.name).size(), max_link_name) << node.name;
  }
  EXPECT_EQ(router_link_name("broker-0"), "v-broker-0");
  EXPECT_EQ(router_link_name("remote-zookeeper-0"), "v-rzookeeper-0");
  EXPECT_EQ(router_link_name("remote-applications"), "v-rapplications");
}

TEST(remote_node_configs, a_remote_broker_names_its_cluster_its_store_and_the_shared_one) {
  const auto layout = plan_cluster(with_remote(), std::nullopt);
  const auto text = broker_config(layout, layout.node("remote-broker-0"), {});
  EXPECT_NE(text.find("clusterName=remote\n"), std::string::npos) << text;
  EXPECT_NE(text.find("metadataStoreUrl=zk:10.99.10.2:2181\n"), std::string::npos) << text;
  EXPECT_NE(text.find("configurationMetadataStoreUrl=zk:10.99.1.2:2181\n"), std::string::npos) << text;
  // Its quorum follows its own two bookies, not the first cluster's three.
  EXPECT_NE(text.find("managedLedgerDefaultEnsembleSize=2\n"), std::string::npos) << text;
}

TEST(remote_node_configs, a_local_broker_keeps_its_single_store) {
  const auto layout = plan_cluster(with_remote(), std::nullopt);
  const auto text = broker_config(layout, layout.node("broker-0"), {});
  EXPECT_NE(text.find("clusterName=local\n"), std::string::npos) << text;
  EXPECT_EQ(text.find("configurationMetadataStoreUrl"), std::string::npos) << text;
}

TEST(remote_node_configs, a_remote_bookie_registers_in_the_remote_zookeeper) {
  const auto layout = plan_cluster(with_remote(), std::nullopt);
  const auto text = bookie_config(layout, layout.node("remote-bookie-1"), "/d", {});
  EXPECT_NE(text.find("metadataServiceUri=zk+null://10.99.10.2:2181/ledgers\n"), std::string::npos) << text;
}

TEST(remote_node_configs, a_remote_ensemble_lists_only_its_own_servers) {
  auto cluster = with_remote();
  cluster.remote->zookeeper_replicas = 3;
  const auto layout = plan_cluster(cluster, std::nullopt);
  const auto text = zookeeper_config(layout, layout.node("remote-zookeeper-2"), "/data");
  EXPECT_NE(text.find("server.1=10.99.10.2:2888:3888\n"), std::string::npos) << text;
  EXPECT_NE(text.find("server.3=10.99.12.2:2888:3888\n"), std::string::npos) << text;
  EXPECT_EQ(text.find("10.99.1.2"), std::string::npos) << text;
}

}  // namespace
}  // namespace magnetar::perf
