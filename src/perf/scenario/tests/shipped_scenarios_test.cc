// Every scenario the repository ships parses and validates, and the launcher can start
// its cluster.
#include "perf/scenario/scenario_loader.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>

namespace magnetar::perf {
namespace {

namespace fs = std::filesystem;

class shipped_scenario : public ::testing::TestWithParam<const char*> {};

TEST_P(shipped_scenario, parses_and_validates) {
  const fs::path file = fs::path(MAGNETAR_SOURCE_DIR) / GetParam();
  auto tree = resolve_scenario(file, {}, {});
  ASSERT_TRUE(tree) << tree.error();
  auto settings = parse_settings(tree.value());
  ASSERT_TRUE(settings) << settings.error();
  EXPECT_TRUE(check_cluster(settings.value().cluster));
  // What the workloads read back from resolved-config.yaml is the same.
  auto again = parse_settings(YAML::Load(emit_yaml(tree.value())));
  ASSERT_TRUE(again) << again.error();
  EXPECT_EQ(again.value().iot.measured_messages(), settings.value().iot.measured_messages());
}

INSTANTIATE_TEST_SUITE_P(files, shipped_scenario,
                         ::testing::Values("scenarios/iot-telemetry-base.yaml", "scenarios/iot-telemetry-small.yaml",
                                           "scenarios/iot-telemetry-high-rate.yaml",
                                           "scenarios/iot-telemetry-restarts.yaml", "tests/perf/tiny.yaml",
                                           "tests/perf/tiny-geo.yaml"));

TEST(shipped_scenarios, high_rate_sends_five_million_measured_messages) {
  auto tree = resolve_scenario(fs::path(MAGNETAR_SOURCE_DIR) / "scenarios/iot-telemetry-high-rate.yaml", {}, {});
  ASSERT_TRUE(tree) << tree.error();
  auto settings = parse_settings(tree.value());
  ASSERT_TRUE(settings) << settings.error();
  EXPECT_EQ(settings.value().iot.measured_messages(), 5'000'000);
  EXPECT_EQ(settings.value().iot.gateways.count, 500);
  EXPECT_TRUE(settings.value().iot.gateways.producer.precreate);
}

TEST(shipped_scenarios, failover_cluster_overlay_makes_a_cluster_that_fits) {
  auto tree = resolve_scenario(fs::path(MAGNETAR_SOURCE_DIR) / "scenarios/iot-telemetry-small.yaml",
                               {.extends = {"failover-cluster"}}, {});
  ASSERT_TRUE(tree) << tree.error();
  auto settings = parse_settings(tree.value());
  ASSERT_TRUE(settings) << settings.error();
  const auto& cluster = settings.value().cluster;
  EXPECT_EQ(cluster.brokers.replicas, 2);
  EXPECT_EQ(cluster.bookies.replicas, 4);
  EXPECT_EQ(cluster.bootstrap, bootstrap_brokers::all);
  EXPECT_EQ(cluster.brokers.env.at("managedLedgerDefaultAckQuorum"), "2");
  EXPECT_FALSE(cluster.standalone());
  EXPECT_TRUE(check_cluster(cluster));
}

// Each network overlay over the small scenario: it parses, its impairments validate on
// the cluster it gets, and it has at least one.
class network_overlay : public ::testing::TestWithParam<std::string> {};

TEST_P(network_overlay, validates_over_the_small_scenario) {
  auto tree = resolve_scenario(fs::path(MAGNETAR_SOURCE_DIR) / "scenarios/iot-telemetry-small.yaml",
                               {.extends = {"network/" + GetParam()}}, {});
  ASSERT_TRUE(tree) << tree.error();
  auto settings = parse_settings(tree.value());
  ASSERT_TRUE(settings) << settings.error();
  EXPECT_TRUE(settings.value().network.any_enabled());
  EXPECT_TRUE(check_cluster(settings.value().cluster));
}

// geo-replication is the base of the geo-* overlays: a remote cluster, no impairment.
constexpr std::string_view geo_base = "geo-replication";

std::vector<std::string> network_overlays() {
  std::vector<std::string> names;
  for (const auto& entry : fs::directory_iterator(fs::path(MAGNETAR_SOURCE_DIR) / "scenarios/network")) {
    if (entry.path().extension() == ".yaml" && entry.path().stem() != geo_base) {
      names.push_back(entry.path().stem().string());
    }
  }
  std::sort(names.begin(), names.end());
  return names;
}

INSTANTIATE_TEST_SUITE_P(files, network_overlay, ::testing::ValuesIn(network_overlays()), [](const auto& info) {
  std::string name = info.param;
  std::replace(name.begin(), name.end(), '-', '_');
  return name;
});

TEST(shipped_scenarios, there_are_twenty_four_network_overlays_besides_the_geo_base) {
  EXPECT_EQ(network_overlays().size(), 24u);
}

TEST(shipped_scenarios, geo_replication_adds_a_remote_cluster_with_four_applications_and_an_hour_of_retention) {
  auto tree = resolve_scenario(fs::path(MAGNETAR_SOURCE_DIR) / "scenarios/iot-telemetry-small.yaml",
                               {.extends = {"network/geo-replication"}}, {});
  ASSERT_TRUE(tree) << tree.error();
  auto settings = parse_settings(tree.value());
  ASSERT_TRUE(settings) << settings.error();
  const auto& remote = settings.value().cluster.remote;
  ASSERT_TRUE(remote);
  EXPECT_EQ(remote->applications.count, 4);
  EXPECT_EQ(remote->retention_minutes, 60);
  EXPECT_EQ(remote->brokers.replicas, settings.value().cluster.brokers.replicas);
  EXPECT_FALSE(settings.value().network.any_enabled());
}

TEST(shipped_scenarios, the_geo_overlays_act_between_the_regions_over_the_failover_cluster_too) {
  for (const char* overlay :
       {"network/geo-wan", "network/geo-partition", "network/geo-silent-disconnect", "network/geo-constrained-link"}) {
    auto tree = resolve_scenario(fs::path(MAGNETAR_SOURCE_DIR) / "scenarios/iot-telemetry-small.yaml",
                                 {.extends = {"failover-cluster", overlay}}, {});
    ASSERT_TRUE(tree) << overlay << ": " << tree.error();
    auto settings = parse_settings(tree.value());
    ASSERT_TRUE(settings) << overlay << ": " << settings.error();
    ASSERT_TRUE(settings.value().cluster.remote) << overlay;
    EXPECT_EQ(settings.value().cluster.remote->bookies.replicas, 4) << overlay;
    EXPECT_TRUE(check_cluster(settings.value().cluster)) << overlay;
  }
}

}  // namespace
}  // namespace magnetar::perf
