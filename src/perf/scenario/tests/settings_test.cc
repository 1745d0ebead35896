// parse_settings() reading values, defaults and derived counts; load_resolved_config();
// check_cluster().
#include "perf/scenario/scenario_loader.h"
#include "perf/scenario/tests/scenario_files.h"

#include <gtest/gtest.h>

namespace magnetar::perf {
namespace {

using testing::scenario_files;
using testing::valid_scenario;

TEST(scenario_settings_parse, reads_every_section_of_a_full_scenario) {
  auto settings = parse_settings(YAML::Load(valid_scenario));
  ASSERT_TRUE(settings) << settings.error();
  const auto& s = settings.value();
  EXPECT_EQ(s.cluster.brokers.replicas, 1);
  EXPECT_EQ(s.cluster.brokers.env.at("brokerDeduplicationEnabled"), "true");
  EXPECT_EQ(s.iot.warmup.seconds, 10);
  EXPECT_EQ(s.iot.measurement.seconds, 30);
  EXPECT_DOUBLE_EQ(s.iot.rate, 1000);
  EXPECT_EQ(s.iot.payload_size, 64);
  EXPECT_EQ(s.iot.timeout_seconds, 150);
  EXPECT_EQ(s.iot.devices, 10000);
  EXPECT_EQ(s.iot.gateways.count, 4);
  EXPECT_EQ(s.iot.gateways.producer.max_outstanding, 20000);
  EXPECT_TRUE(s.iot.gateways.producer.batching_enabled);
  EXPECT_EQ(s.iot.topics.count, 6);
  EXPECT_EQ(s.iot.topic(5), "persistent://public/default/iot-telemetry-5");
  EXPECT_EQ(s.iot.applications.count, 3);
  EXPECT_EQ(s.iot.applications.pods_per_application, 3);
  EXPECT_EQ(s.iot.subscription(2), "iot-application-2");
  EXPECT_EQ(s.metrics_interval_seconds, 1);
  EXPECT_FALSE(s.output_name);
}

TEST(scenario_settings_parse, absent_keys_keep_their_defaults) {
  auto settings = parse_settings(YAML::Load("workloads:\n  iotTelemetry:\n    measurement:\n      seconds: 5\n"));
  ASSERT_TRUE(settings) << settings.error();
  const scenario_settings defaults;
  EXPECT_EQ(settings.value().iot.gateways.count, defaults.iot.gateways.count);
  EXPECT_EQ(settings.value().iot.topics.prefix, defaults.iot.topics.prefix);
  EXPECT_EQ(settings.value().iot.applications.caught_up_latency_millis, 1000);
  EXPECT_TRUE(settings.value().iot.applications.join_seconds.empty());
  EXPECT_EQ(settings.value().iot.applications.join_seconds_of(0), 0);
}

TEST(scenario_settings_parse, reads_join_seconds_and_caught_up_latency) {
  auto tree = YAML::Load(valid_scenario);
  tree["workloads"]["iotTelemetry"]["applications"]["joinSeconds"] = YAML::Load("[0, 5, 20]");
  tree["workloads"]["iotTelemetry"]["applications"]["caughtUpLatencyMillis"] = 250;
  auto settings = parse_settings(tree);
  ASSERT_TRUE(settings) << settings.error();
  EXPECT_EQ(settings.value().iot.applications.join_seconds, (std::vector<int>{0, 5, 20}));
  EXPECT_EQ(settings.value().iot.applications.join_seconds_of(2), 20);
  EXPECT_EQ(settings.value().iot.applications.caught_up_latency_millis, 250);
}

TEST(scenario_settings_parse, reads_output_name) {
  auto tree = YAML::Load(valid_scenario);
  tree["output"]["name"] = "my-run";
  auto settings = parse_settings(tree);
  ASSERT_TRUE(settings) << settings.error();
  EXPECT_EQ(settings.value().output_name, "my-run");
}

TEST(scenario_settings_parse, empty_profiling_section_is_accepted) {
  auto tree = YAML::Load(valid_scenario);
  tree["profiling"] = YAML::Node(YAML::NodeType::Map);
  EXPECT_TRUE(parse_settings(tree));
}

TEST(scenario_settings_counts, time_based_warmup_and_measurement_count_at_the_rate) {
  iot_telemetry_settings s;
  s.rate = 1000;
  s.warmup.seconds = 20;
  s.measurement.seconds = 120;
  EXPECT_EQ(s.warmup_messages_per_round(), 20'000);
  EXPECT_EQ(s.measured_messages(), 120'000);
}

TEST(scenario_settings_counts, message_counts_win_over_seconds) {
  iot_telemetry_settings s;
  s.rate = 30000;
  s.warmup.messages = 500;
  s.measurement.seconds = 120;
  s.measurement.messages = 5'000'000;
  EXPECT_EQ(s.warmup_messages_per_round(), 500);
  EXPECT_EQ(s.measured_messages(), 5'000'000);
  EXPECT_EQ(s.measurement_seconds(), 167);
}

TEST(scenario_settings_counts, warmup_time_counts_rounds_and_delays) {
  iot_telemetry_settings s;
  s.rate = 100;
  s.warmup.messages = 1001;
  s.warmup.rounds = 3;
  s.warmup.round_delay_seconds = 2;
  EXPECT_EQ(s.warmup_round_seconds(), 11);
  EXPECT_EQ(s.warmup_total_seconds(), 39);
}

TEST(scenario_load_resolved, reads_what_emit_yaml_wrote) {
  scenario_files files;
  const auto scenario = files.write("s.yaml", valid_scenario);
  auto tree = resolve_scenario(scenario, {}, {});
  ASSERT_TRUE(tree) << tree.error();
  const auto resolved = files.write("resolved-config.yaml", emit_yaml(tree.value()));
  auto settings = load_resolved_config(resolved);
  ASSERT_TRUE(settings) << settings.error();
  EXPECT_EQ(settings.value().iot.gateways.count, 4);
  EXPECT_EQ(settings.value().cluster.brokers.env.at("brokerDeduplicationEnabled"), "true");
}

TEST(scenario_load_resolved, missing_file_is_an_io_error) {
  scenario_files files;
  auto settings = load_resolved_config(files.dir() / "absent.yaml");
  ASSERT_FALSE(settings);
  EXPECT_EQ(settings.error(), base::errc::io_error);
}

TEST(scenario_load_resolved, invalid_settings_name_the_file) {
  scenario_files files;
  const auto resolved = files.write("resolved-config.yaml", "workloads:\n  iotTelemetry:\n    rate: -1\n");
  auto settings = load_resolved_config(resolved);
  ASSERT_FALSE(settings);
  EXPECT_NE(settings.error().detail().find("resolved-config.yaml: "), std::string::npos) << settings.error();
}

TEST(scenario_cluster, one_broker_and_one_bookie_is_the_standalone) {
  EXPECT_TRUE(cluster_settings{}.standalone());
  cluster_settings cluster;
  cluster.bookies.replicas = 3;
  EXPECT_FALSE(cluster.standalone());
}

TEST(scenario_cluster, an_ensemble_larger_than_the_bookies_is_refused) {
  cluster_settings cluster;
  cluster.bookies.replicas = 2;
  cluster.brokers.env["managedLedgerDefaultEnsembleSize"] = "3";
  auto done = check_cluster(cluster);
  ASSERT_FALSE(done);
  EXPECT_NE(done.error().detail().find("cluster.brokers.env.managedLedgerDefaultEnsembleSize: 3 bookies per ledger"),
            std::string::npos)
      << done.error();
  cluster.bookies.replicas = 3;
  EXPECT_TRUE(check_cluster(cluster));
}

TEST(scenario_cluster, zookeeper_bootstrap_and_replicas_parse) {
  auto tree = YAML::Load(valid_scenario);
  tree["cluster"]["brokers"]["replicas"] = 2;
  tree["cluster"]["brokers"]["bootstrap"] = "all";
  tree["cluster"]["zookeeper"]["replicas"] = 3;
  auto settings = parse_settings(tree);
  ASSERT_TRUE(settings) << settings.error();
  EXPECT_EQ(settings.value().cluster.brokers.replicas, 2);
  EXPECT_EQ(settings.value().cluster.bootstrap, bootstrap_brokers::all);
  EXPECT_EQ(settings.value().cluster.zookeeper_replicas, 3);
}

TEST(scenario_cluster, two_zookeeper_servers_are_refused) {
  auto tree = YAML::Load(valid_scenario);
  tree["cluster"]["zookeeper"]["replicas"] = 2;
  auto settings = parse_settings(tree);
  ASSERT_FALSE(settings);
  EXPECT_NE(settings.error().detail().find("cluster.zookeeper.replicas: 2 servers"), std::string::npos)
      << settings.error();
}

TEST(scenario_cluster, an_unknown_bootstrap_names_the_key) {
  auto tree = YAML::Load(valid_scenario);
  tree["cluster"]["brokers"]["bootstrap"] = "some";
  auto settings = parse_settings(tree);
  ASSERT_FALSE(settings);
  EXPECT_NE(settings.error().detail().find("cluster.brokers.bootstrap: 'some' is neither single nor all"),
            std::string::npos)
      << settings.error();
}

// A file in upstream's newest nested format, as its iot-telemetry-base.yaml is shaped:
// JVM memory settings in the env mappings, three bookies, 300,000 devices.
TEST(scenario_upstream_format, upstream_shaped_base_file_loads) {
  scenario_files files;
  const auto base = files.write("upstream-base.yaml", R"(# defaults every IoT scenario extends
cluster:
  brokers:
    replicas: 1
    env:
      PULSAR_MEM: -Xms1g -Xmx1g
      brokerDeduplicationEnabled: "true"
      managedLedgerMaxEntriesPerLedger: "50000000"
  bookies:
    replicas: 3
    env:
      PULSAR_MEM: -Xms256m -Xmx256m
      minorCompactionInterval: "-1"
workloads:
  iotTelemetry:
    warmup: {seconds: 20, messages: 0, rounds: 1, roundDelaySeconds: 0}
    measurement: {seconds: 120, messages: 0}
    rate: 1000
    payload: {size: 64}
    timeoutSeconds: 240
    devices: {count: 300000}
    gateways:
      count: 1
      producer: {ioThreads: 8, listenerThreads: 16, maxOutstanding: 20000, batchingEnabled: true, precreate: false}
      env: {PULSAR_MEM: -Xmx256m}
    topics: {count: 30, prefix: persistent://public/default/iot-telemetry-}
    applications:
      count: 1
      podsPerApplication: 1
      subscriptionPrefix: iot-application-
      client: {ioThreads: 8, listenerThreads: 16}
      env: {PULSAR_MEM: -Xmx256m}
    behaviors:
      podRestarts: {intervalSeconds: 0, fraction: 0.0}
)");
  const auto child = files.write("upstream-small.yaml",
                                 "extends: upstream-base.yaml\nworkloads:\n  iotTelemetry:\n"
                                 "    gateways: {count: 10}\n    applications: {count: 20, "
                                 "podsPerApplication: 10}\n");
  auto tree = resolve_scenario(child, {}, {});
  ASSERT_TRUE(tree) << tree.error();
  auto settings = parse_settings(tree.value());
  ASSERT_TRUE(settings) << settings.error();
  EXPECT_EQ(settings.value().cluster.bookies.replicas, 3);
  EXPECT_EQ(settings.value().cluster.bookies.env.at("minorCompactionInterval"), "-1");
  EXPECT_EQ(settings.value().iot.gateways.count, 10);
  EXPECT_EQ(settings.value().iot.gateways.producer.io_threads, 8);
  EXPECT_EQ(settings.value().iot.applications.count, 20);
  EXPECT_EQ(settings.value().iot.devices, 300000);
  EXPECT_EQ(settings.value().iot.measured_messages(), 120000);
}

}  // namespace
}  // namespace magnetar::perf
