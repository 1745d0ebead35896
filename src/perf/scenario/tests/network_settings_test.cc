// The scenario's network section: what it reads, and each rule that refuses a setting
// with a message naming its key.
#include "perf/scenario/scenario_loader.h"
#include "perf/scenario/tests/scenario_files.h"

#include <gtest/gtest.h>

namespace magnetar::perf {
namespace {

using namespace std::chrono_literals;
using testing::valid_scenario;

// The valid scenario on a cluster of 2 brokers, 3 bookies and 1 ZooKeeper server, with
// `network` as given (YAML).
result<scenario_settings> with_network(const std::string& network) {
  auto tree = YAML::Load(valid_scenario);
  tree["cluster"]["brokers"]["replicas"] = 2;
  tree["cluster"]["bookies"]["replicas"] = 3;
  tree["network"] = YAML::Load(network);
  return parse_settings(tree);
}

std::string error_of(const std::string& network) {
  auto parsed = with_network(network);
  return parsed ? std::string("(parsed)") : parsed.error().message();
}

TEST(network_settings, reads_a_condition_between_two_endpoints) {
  auto parsed = with_network(R"(
offloads: off
impairments:
  wan:
    between: [clients, brokers]
    delay: 40ms
    jitter: 5ms
    reorder: true
    loss: 0.5%
    lossBurst: 4
    rate: 20Mbit
    queue: 64kb
)");
  ASSERT_TRUE(parsed) << parsed.error();
  const auto& network = parsed.value().network;
  EXPECT_EQ(network.offloads, offload_mode::off);
  ASSERT_EQ(network.impairments.size(), 1u);
  const auto& wan = network.impairments[0];
  EXPECT_EQ(wan.name, "wan");
  EXPECT_EQ(wan.kind, impairment_kind::condition);
  EXPECT_EQ(wan.from, std::vector<std::string>{"clients"});
  EXPECT_EQ(wan.to, std::vector<std::string>{"brokers"});
  EXPECT_TRUE(wan.both_ways);
  EXPECT_EQ(wan.delay, 40ms);
  EXPECT_EQ(wan.jitter, 5ms);
  EXPECT_TRUE(wan.reorder);
  EXPECT_DOUBLE_EQ(wan.loss_percent, 0.5);
  EXPECT_DOUBLE_EQ(wan.loss_burst, 4);
  EXPECT_EQ(wan.rate_bits, 20'000'000);
  EXPECT_EQ(wan.queue_bytes, 64 * 1024);
  EXPECT_FALSE(wan.start);
}

TEST(network_settings, reads_a_timed_partition_one_way) {
  auto parsed = with_network(R"(
impairments:
  cut:
    kind: partition
    from: [broker-0, broker-1]
    to: bookies
    start: 20s
    anchor: gateways
    duration: 1.5s
)");
  ASSERT_TRUE(parsed) << parsed.error();
  const auto& cut = parsed.value().network.impairments.at(0);
  EXPECT_EQ(cut.kind, impairment_kind::partition);
  EXPECT_EQ(cut.from, (std::vector<std::string>{"broker-0", "broker-1"}));
  EXPECT_FALSE(cut.both_ways);
  EXPECT_EQ(cut.start, 20s);
  EXPECT_EQ(cut.anchor, impairment_anchor::gateways);
  EXPECT_EQ(cut.duration, 1500ms);
}

TEST(network_settings, a_side_of_between_may_list_several_endpoints) {
  auto parsed =
      with_network("impairments:\n  alone:\n    kind: partition\n    between: [broker-0, [clients, bookies]]\n");
  ASSERT_TRUE(parsed) << parsed.error();
  const auto& alone = parsed.value().network.impairments.at(0);
  EXPECT_EQ(alone.from, std::vector<std::string>{"broker-0"});
  EXPECT_EQ(alone.to, (std::vector<std::string>{"clients", "bookies"}));
  EXPECT_TRUE(alone.both_ways);
}

TEST(network_settings, between_needs_two_sides) {
  EXPECT_NE(error_of("impairments:\n  x:\n    between: [clients]\n    delay: 5ms\n").find("must name two sides"),
            std::string::npos);
}

TEST(network_settings, a_disabled_impairment_is_kept_but_not_checked) {
  auto parsed = with_network("impairments:\n  off:\n    enabled: false\n    between: [nowhere, brokers]\n");
  ASSERT_TRUE(parsed) << parsed.error();
  EXPECT_FALSE(parsed.value().network.any_enabled());
}

TEST(network_settings, an_unknown_key_is_named_with_a_hint) {
  EXPECT_NE(error_of("impairments:\n  x:\n    between: [clients, brokers]\n    dealy: 5ms\n")
                .find("network.impairments.x.dealy is not a setting (did you mean network.impairments.x.delay?)"),
            std::string::npos);
}

TEST(network_settings, an_unknown_endpoint_is_named_with_a_hint) {
  EXPECT_NE(error_of("impairments:\n  x:\n    between: [clients, brokres]\n    delay: 5ms\n")
                .find("network.impairments.x.between: brokres is not an endpoint (did you mean brokers?)"),
            std::string::npos);
}

TEST(network_settings, a_node_outside_the_cluster_is_refused) {
  EXPECT_NE(error_of("impairments:\n  x:\n    from: broker-2\n    to: bookies\n    loss: 1%\n")
                .find("broker-2 is not in this cluster: cluster.brokers.replicas is 2"),
            std::string::npos);
}

TEST(network_settings, a_remote_endpoint_needs_a_remote_cluster) {
  EXPECT_NE(error_of("impairments:\n  x:\n    between: [local-region, remote-region]\n    delay: 5ms\n")
                .find("no remote cluster"),
            std::string::npos);
}

TEST(network_settings, units_are_checked_with_the_form_they_take) {
  EXPECT_NE(error_of("impairments:\n  x:\n    between: [clients, brokers]\n    delay: 20\n")
                .find("network.impairments.x.delay must be a duration such as 20ms, not \"20\""),
            std::string::npos);
  EXPECT_NE(error_of("impairments:\n  x:\n    between: [clients, brokers]\n    rate: 20MB\n")
                .find("network.impairments.x.rate must be a bit rate"),
            std::string::npos);
  EXPECT_NE(error_of("impairments:\n  x:\n    between: [clients, brokers]\n    loss: 0.01\n")
                .find("network.impairments.x.loss must be a percentage"),
            std::string::npos);
}

TEST(network_settings, settings_that_do_not_fit_the_kind_are_refused) {
  EXPECT_NE(error_of("impairments:\n  x:\n    kind: partition\n    between: [clients, brokers]\n    delay: 5ms\n")
                .find("are a condition's settings, not a partition's"),
            std::string::npos);
  EXPECT_NE(error_of("impairments:\n  x:\n    between: [clients, brokers]\n").find("a condition needs delay"),
            std::string::npos);
  EXPECT_NE(error_of("impairments:\n  x:\n    kind: reset\n    between: [clients, brokers]\n").find("set start"),
            std::string::npos);
  EXPECT_NE(error_of("impairments:\n  x:\n    kind: silentDisconnect\n    between: [clients, brokers]\n"
                     "    start: 1s\n")
                .find("use from and to, not between"),
            std::string::npos);
}

TEST(network_settings, jitter_above_delay_and_queue_without_rate_are_refused) {
  EXPECT_NE(error_of("impairments:\n  x:\n    between: [clients, brokers]\n    delay: 5ms\n    jitter: 6ms\n")
                .find("must not exceed delay"),
            std::string::npos);
  EXPECT_NE(error_of("impairments:\n  x:\n    between: [clients, brokers]\n    loss: 1%\n    queue: 64kb\n")
                .find("network.impairments.x.queue needs rate"),
            std::string::npos);
}

TEST(network_settings, a_start_after_the_measurement_is_refused) {
  // The valid scenario measures 30 s.
  EXPECT_NE(error_of("impairments:\n  x:\n    kind: partition\n    between: [clients, brokers]\n    start: 31s\n")
                .find("past the measurement's estimated end"),
            std::string::npos);
}

TEST(network_settings, overlapping_conditions_on_one_pair_are_refused) {
  EXPECT_NE(error_of(R"(
impairments:
  a:
    between: [gateways, brokers]
    delay: 5ms
  b:
    from: broker-1
    to: clients
    loss: 1%
    start: 5s
)")
                .find("network.impairments.a and .b both act on broker-1 -> gateways at the same time"),
            std::string::npos);
}

TEST(network_settings, conditions_at_different_times_on_one_pair_are_accepted) {
  auto parsed = with_network(R"(
impairments:
  a:
    between: [gateways, brokers]
    delay: 5ms
    start: 1s
    duration: 4s
  b:
    between: [gateways, brokers]
    loss: 1%
    start: 5s
)");
  EXPECT_TRUE(parsed) << parsed.error();
}

TEST(network_settings, a_partition_may_overlap_a_condition) {
  auto parsed = with_network(R"(
impairments:
  slow:
    between: [gateways, brokers]
    delay: 5ms
  cut:
    kind: partition
    between: [gateways, broker-0]
    start: 5s
    duration: 5s
)");
  EXPECT_TRUE(parsed) << parsed.error();
}

}  // namespace
}  // namespace magnetar::perf
