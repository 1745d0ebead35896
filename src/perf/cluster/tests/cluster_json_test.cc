// read_cluster_json(): what `cluster down` takes from a run's cluster.json.
#include "perf/cluster/cluster_json.h"

#include "perf/cluster/tests/test_support.h"

#include <gtest/gtest.h>

#include <fstream>

namespace magnetar::perf {
namespace {

using testing::temp_dir;

TEST(cluster_json, names_the_processes_with_their_roles_and_the_namespaces_router_last) {
  temp_dir dir;
  std::ofstream(dir.path() / "cluster.json") << R"({"router": "mg-1-router", "nodes": [
      {"name": "zookeeper-0", "role": "zookeeper", "namespace": "mg-1-zookeeper-0", "pid": 11},
      {"name": "broker-0", "role": "broker", "namespace": "mg-1-broker-0", "pid": 12},
      {"name": "gateways", "role": "clients", "namespace": "mg-1-gateways"}]})";
  auto recorded = read_cluster_json(dir.path() / "cluster.json");
  ASSERT_TRUE(recorded) << recorded.error();
  ASSERT_EQ(recorded.value().processes.size(), 2u);
  EXPECT_EQ(recorded.value().processes[1].name, "broker-0");
  EXPECT_EQ(recorded.value().processes[1].role, "broker");
  EXPECT_EQ(recorded.value().processes[1].pid, 12);
  EXPECT_EQ(recorded.value().namespaces,
            (std::vector<std::string>{"mg-1-zookeeper-0", "mg-1-broker-0", "mg-1-gateways", "mg-1-router"}));
}

TEST(cluster_json, a_file_without_nodes_is_refused) {
  temp_dir dir;
  std::ofstream(dir.path() / "cluster.json") << R"({"runId": "x"})";
  auto recorded = read_cluster_json(dir.path() / "cluster.json");
  ASSERT_FALSE(recorded);
  EXPECT_NE(recorded.error().detail().find("not a cluster.json"), std::string::npos) << recorded.error();
}

TEST(cluster_json, a_loopback_cluster_has_no_namespaces_to_delete) {
  temp_dir dir;
  std::ofstream(dir.path() / "cluster.json")
      << R"({"router": "", "nodes": [{"name": "bookie-0", "role": "bookie", "namespace": "", "pid": 7}]})";
  auto recorded = read_cluster_json(dir.path() / "cluster.json");
  ASSERT_TRUE(recorded) << recorded.error();
  EXPECT_TRUE(recorded.value().namespaces.empty());
}

}  // namespace
}  // namespace magnetar::perf
