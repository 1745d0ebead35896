// cluster.remote (geo-replication): what it reads, what it copies from the first cluster
// and the local applications, what it refuses, and the endpoints it adds.
#include "perf/scenario/network_endpoints.h"
#include "perf/scenario/scenario_loader.h"
#include "perf/scenario/tests/scenario_files.h"

#include <gtest/gtest.h>

namespace magnetar::perf {
namespace {

using testing::valid_scenario;

// The valid scenario on 2 brokers and 3 bookies, with `remote` as cluster.remote (YAML).
result<scenario_settings> with_remote(const std::string& remote) {
  auto tree = YAML::Load(valid_scenario);
  tree["cluster"]["brokers"]["replicas"] = 2;
  tree["cluster"]["brokers"]["env"]["managedLedgerDefaultEnsembleSize"] = "3";
  tree["cluster"]["bookies"]["replicas"] = 3;
  tree["workloads"]["iotTelemetry"]["applications"]["env"]["A"] = "1";
  tree["cluster"]["remote"] = YAML::Load(remote);
  return parse_settings(tree);
}

std::string error_of(const std::string& remote) {
  auto parsed = with_remote(remote);
  return parsed ? std::string("(parsed)") : parsed.error().message();
}

TEST(remote_cluster, absent_means_a_single_cluster) {
  auto parsed = parse_settings(YAML::Load(valid_scenario));
  ASSERT_TRUE(parsed) << parsed.error();
  EXPECT_FALSE(parsed.value().cluster.remote);
}

TEST(remote_cluster, an_empty_section_copies_the_first_cluster_and_the_applications) {
  auto parsed = with_remote("{}");
  ASSERT_TRUE(parsed) << parsed.error();
  const auto& remote = parsed.value().cluster.remote;
  ASSERT_TRUE(remote);
  EXPECT_EQ(remote->brokers.replicas, 2);
  EXPECT_EQ(remote->brokers.env.at("managedLedgerDefaultEnsembleSize"), "3");
  EXPECT_EQ(remote->bookies.replicas, 3);
  EXPECT_EQ(remote->zookeeper_replicas, 1);
  EXPECT_EQ(remote->applications.count, 3);
  EXPECT_EQ(remote->applications.pods_per_application, 3);
  EXPECT_EQ(remote->applications.env.at("A"), "1");
  EXPECT_EQ(remote->retention_minutes, 0);
}

TEST(remote_cluster, its_own_keys_win_over_the_copies) {
  auto parsed = with_remote(R"(
brokers: {replicas: 1, env: {managedLedgerDefaultEnsembleSize: "1"}}
bookies: {replicas: 1}
applications: {count: 4, podsPerApplication: 2, env: {B: "2"}}
retentionMinutes: 60
)");
  ASSERT_TRUE(parsed) << parsed.error();
  const auto& remote = *parsed.value().cluster.remote;
  EXPECT_EQ(remote.brokers.replicas, 1);
  EXPECT_EQ(remote.brokers.env.at("managedLedgerDefaultEnsembleSize"), "1");
  EXPECT_EQ(remote.bookies.replicas, 1);
  EXPECT_EQ(remote.applications.count, 4);
  EXPECT_EQ(remote.applications.pods_per_application, 2);
  EXPECT_EQ(remote.applications.env, (std::map<std::string, std::string>{{"B", "2"}}));
  EXPECT_EQ(remote.retention_minutes, 60);
}

TEST(remote_cluster, makes_even_one_broker_and_one_bookie_a_cluster) {
  cluster_settings cluster;
  cluster.remote.emplace();
  EXPECT_FALSE(cluster.standalone());
}

TEST(remote_cluster, an_unknown_key_is_named_with_a_hint) {
  EXPECT_NE(error_of("{brokers: {replica: 1}}").find("cluster.remote.brokers.replica is not a setting"),
            std::string::npos);
}

TEST(remote_cluster, topics_outside_the_replicated_namespace_are_refused) {
  auto tree = YAML::Load(valid_scenario);
  tree["workloads"]["iotTelemetry"]["topics"]["prefix"] = "persistent://public/iot/t-";
  tree["cluster"]["remote"] = YAML::Load("{}");
  auto parsed = parse_settings(tree);
  ASSERT_FALSE(parsed);
  EXPECT_NE(parsed.error().message().find("topics.prefix \"persistent://public/iot/t-\" is outside public/default"),
            std::string::npos)
      << parsed.error();
}

TEST(remote_cluster, its_ensemble_must_fit_its_own_bookies) {
  auto parsed = with_remote("{bookies: {replicas: 2}}");
  ASSERT_TRUE(parsed) << parsed.error();
  auto checked = check_cluster(parsed.value().cluster);
  ASSERT_FALSE(checked);
  EXPECT_NE(checked.error().detail().find("cluster.remote.brokers.env.managedLedgerDefaultEnsembleSize: 3 bookies"),
            std::string::npos)
      << checked.error();
}

TEST(remote_cluster, remote_endpoints_name_the_remote_nodes) {
  auto parsed = with_remote("{brokers: {replicas: 1}, bookies: {replicas: 3}}");
  ASSERT_TRUE(parsed) << parsed.error();
  const auto& cluster = parsed.value().cluster;
  EXPECT_EQ(endpoint_nodes("remote-brokers", cluster).value(), std::vector<std::string>{"remote-broker-0"});
  EXPECT_EQ(endpoint_nodes("remote-bookie-2", cluster).value(), std::vector<std::string>{"remote-bookie-2"});
  EXPECT_EQ(endpoint_nodes("remote-zookeeper", cluster).value(), std::vector<std::string>{"remote-zookeeper-0"});
  EXPECT_EQ(endpoint_nodes("remote-applications", cluster).value(), std::vector<std::string>{"remote-applications"});
}

TEST(remote_cluster, a_remote_node_outside_its_cluster_names_the_key) {
  auto parsed = with_remote("{brokers: {replicas: 1}}");
  ASSERT_TRUE(parsed) << parsed.error();
  auto nodes = endpoint_nodes("remote-broker-1", parsed.value().cluster);
  ASSERT_FALSE(nodes);
  EXPECT_NE(nodes.error().message().find("cluster.remote.brokers.replicas is 1"), std::string::npos) << nodes.error();
}

TEST(remote_cluster, the_regions_hold_every_node_but_the_monitor) {
  auto parsed = with_remote("{brokers: {replicas: 1}}");
  ASSERT_TRUE(parsed) << parsed.error();
  const auto& cluster = parsed.value().cluster;
  EXPECT_EQ(endpoint_nodes("local-region", cluster).value(),
            (std::vector<std::string>{"zookeeper-0", "bookie-0", "bookie-1", "bookie-2", "broker-0", "broker-1",
                                      "gateways", "applications"}));
  EXPECT_EQ(endpoint_nodes("remote-region", cluster).value(),
            (std::vector<std::string>{"remote-zookeeper-0", "remote-bookie-0", "remote-bookie-1", "remote-bookie-2",
                                      "remote-broker-0", "remote-applications"}));
}

TEST(remote_cluster, an_impairment_between_the_regions_validates) {
  auto tree = YAML::Load(valid_scenario);
  tree["cluster"]["remote"] = YAML::Load("{}");
  tree["network"] = YAML::Load("impairments:\n  wan:\n    between: [local-region, remote-region]\n    delay: 40ms\n");
  auto parsed = parse_settings(tree);
  EXPECT_TRUE(parsed) << parsed.error();
}

}  // namespace
}  // namespace magnetar::perf
