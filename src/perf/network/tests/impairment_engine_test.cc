// impairment_engine on a fake host: the commands each kind runs, in order, the state
// machine, the undo after a failure, the records and the restored offloads.
#include "perf/network/impairment_engine.h"
#include "perf/network/tests/plan_fixture.h"

#include <gtest/gtest.h>

namespace magnetar::perf {
namespace {

using namespace std::chrono_literals;
using testing::fake_network_host;
using testing::plan_of;

class impairment_engine_test : public ::testing::Test {
 protected:
  impairment_engine& engine_of(std::vector<impairment_settings> impairments,
                               offload_mode offloads = offload_mode::automatic) {
    host.answers["ethtool -k eth0"] = "tcp-segmentation-offload: on\ngeneric-segmentation-offload: off\n";
    _engine = std::make_unique<impairment_engine>(host, "mg-test-router", plan_of(std::move(impairments)), offloads,
                                                  [this](const network_event& e) { events.push_back(e); });
    return *_engine;
  }
  std::vector<std::string> actions() const {
    std::vector<std::string> out;
    for (const auto& e : events) out.push_back(e.impairment + " " + e.action);
    return out;
  }

  fake_network_host host;
  std::vector<network_event> events;

 private:
  std::unique_ptr<impairment_engine> _engine;
};

TEST_F(impairment_engine_test, a_delay_sets_up_the_device_then_the_forwarder_then_the_rules) {
  auto& engine = engine_of({{.name = "wan", .from = {"gateways"}, .to = {"broker-0"}, .delay = 20ms}});
  ASSERT_TRUE(engine.apply(0));
  const auto device = host.containing("ip tuntap add dev mgd0 mode tun");
  const auto forwarder = host.containing("forwarder mgd0 20000us");
  const auto rule = host.containing("ip rule add iif v-gateways to 10.99.2.2/32 table 100 pref 1000");
  ASSERT_EQ(device.size(), 1u);
  ASSERT_EQ(forwarder.size(), 1u);
  ASSERT_EQ(rule.size(), 1u);
  const auto position = [&](const std::string& c) { return std::find(host.commands.begin(), host.commands.end(), c); };
  EXPECT_LT(position(device[0]), position(forwarder[0]));
  EXPECT_LT(position(forwarder[0]), position(rule[0]));
  EXPECT_EQ(engine.records()[0].state, impairment_state::active);
}

TEST_F(impairment_engine_test, removing_a_delay_deletes_the_rules_before_stopping_the_forwarder) {
  auto& engine = engine_of({{.name = "wan", .from = {"gateways"}, .to = {"broker-0"}, .delay = 20ms}});
  ASSERT_TRUE(engine.apply(0));
  host.commands.clear();
  ASSERT_TRUE(engine.remove(0));
  ASSERT_GE(host.commands.size(), 3u);
  EXPECT_NE(host.commands[0].find("ip rule del iif v-gateways"), std::string::npos);
  EXPECT_EQ(host.commands[1], "stop forwarder mgd0");
  EXPECT_NE(host.commands[2].find("ip tuntap del dev mgd0"), std::string::npos);
  EXPECT_TRUE(host.forwarders.empty());
  EXPECT_EQ(engine.records()[0].state, impairment_state::ended);
}

TEST_F(impairment_engine_test, loss_turns_the_senders_offloads_off_and_remove_all_restores_them) {
  auto& engine = engine_of({{.name = "lossy", .from = {"gateways"}, .to = {"broker-0"}, .loss_percent = 1}});
  ASSERT_TRUE(engine.apply(0));
  EXPECT_EQ(host.containing("mg-test-gateways: ethtool -K eth0 tso off gso off").size(), 1u);
  EXPECT_TRUE(host.containing("mg-test-broker-0: ethtool -K").empty());  // the receiver keeps its own
  EXPECT_TRUE(engine.remove_all().empty());
  EXPECT_EQ(host.containing("mg-test-gateways: ethtool -K eth0 tso on gso off").size(), 1u);
}

TEST_F(impairment_engine_test, offloads_on_leaves_them_alone) {
  auto& engine =
      engine_of({{.name = "lossy", .from = {"gateways"}, .to = {"broker-0"}, .loss_percent = 1}}, offload_mode::on);
  ASSERT_TRUE(engine.apply(0));
  EXPECT_TRUE(host.containing("ethtool").empty());
}

TEST_F(impairment_engine_test, the_router_table_is_rebuilt_from_the_active_set) {
  auto& engine =
      engine_of({{.name = "lossy", .from = {"gateways"}, .to = {"broker-0"}, .loss_percent = 1},
                 {.name = "cut", .kind = impairment_kind::partition, .from = {"gateways"}, .to = {"broker-1"}}});
  ASSERT_TRUE(engine.apply(0));
  ASSERT_TRUE(engine.apply(1));
  ASSERT_TRUE(engine.remove(0));
  const auto scripts = host.containing("mg-test-router: nft -f <<");
  ASSERT_EQ(scripts.size(), 3u);
  EXPECT_NE(scripts[1].find("loss:lossy"), std::string::npos);
  EXPECT_NE(scripts[1].find("partition:cut"), std::string::npos);
  EXPECT_EQ(scripts[2].find("loss:lossy"), std::string::npos);
  EXPECT_NE(scripts[2].find("partition:cut"), std::string::npos);
}

TEST_F(impairment_engine_test, a_rate_builds_the_senders_tree_and_its_removal_deletes_it) {
  auto& engine = engine_of({{.name = "uplink", .from = {"gateways"}, .to = {"broker-0"}, .rate_bits = 1'000'000}});
  ASSERT_TRUE(engine.apply(0));
  EXPECT_TRUE(host.containing("tc qdisc del").empty());  // nothing to delete yet
  ASSERT_EQ(host.containing("mg-test-gateways: tc -batch <<qdisc add dev eth0 root handle 1: htb").size(), 1u);
  host.answers["tc qdisc show dev eth0 root"] = "qdisc htb 1: root refcnt 2 r2q 10 default 0\n";
  host.commands.clear();
  ASSERT_TRUE(engine.remove(0));
  EXPECT_EQ(host.containing("mg-test-gateways: tc qdisc del dev eth0 root").size(), 1u);
  EXPECT_TRUE(host.containing("tc -batch").empty());  // no tree left to build
}

TEST_F(impairment_engine_test, drops_counted_before_a_rebuild_are_kept) {
  auto& engine =
      engine_of({{.name = "cut", .kind = impairment_kind::partition, .from = {"gateways"}, .to = {"broker-1"}}});
  host.answers["nft -j list table"] = R"({"nftables": [{"rule": {"comment": "partition:cut",
      "expr": [{"counter": {"packets": 5, "bytes": 1}}]}}]})";
  ASSERT_TRUE(engine.apply(0));   // reads 5 before its own rebuild (the fake answers the same each time)
  ASSERT_TRUE(engine.remove(0));  // and 5 again
  EXPECT_EQ(engine.records()[0].dropped_packets, 10u);
}

TEST_F(impairment_engine_test, a_reset_kills_the_connections_to_each_receiver_and_ends_at_once) {
  auto& engine = engine_of(
      {{.name = "rst", .kind = impairment_kind::reset, .from = {"gateways"}, .to = {"brokers"}, .start = 1s}});
  host.answers["ss -K -Htn state established dst 10.99.2.2"] = "0 0 10.99.4.2:1000 10.99.2.2:6650\n";
  ASSERT_TRUE(engine.apply(0));
  EXPECT_EQ(host.containing("mg-test-gateways: ss -K -Htn state established dst").size(), 2u);
  const auto record = engine.records()[0];
  EXPECT_EQ(record.state, impairment_state::ended);
  EXPECT_EQ(record.matched_connections, 1);
  EXPECT_EQ(record.applied_at, record.removed_at);
}

TEST_F(impairment_engine_test, a_silent_disconnection_drops_the_tuples_before_killing_the_sockets) {
  auto& engine = engine_of({{.name = "nat",
                             .kind = impairment_kind::silent_disconnect,
                             .from = {"gateways"},
                             .to = {"broker-0"},
                             .start = 1s}});
  host.answers["mg-test-gateways: ss -Htn state established dst 10.99.2.2"] =
      "0 0 10.99.4.2:1000 10.99.2.2:6650\n0 0 10.99.4.2:1001 10.99.2.2:6650\n";
  ASSERT_TRUE(engine.apply(0));
  const auto table = host.containing("mg-test-gateways: nft -f <<");
  ASSERT_EQ(table.size(), 1u);
  EXPECT_NE(table[0].find("10.99.4.2 . 1000 . 10.99.2.2 . 6650, 10.99.4.2 . 1001 . 10.99.2.2 . 6650"),
            std::string::npos);
  const auto position = [&](const std::string& c) { return std::find(host.commands.begin(), host.commands.end(), c); };
  EXPECT_LT(position(table[0]), position(host.containing("mg-test-gateways: ss -K")[0]));
  EXPECT_EQ(engine.records()[0].matched_connections, 2);
  ASSERT_TRUE(engine.remove(0));
  EXPECT_EQ(host.containing("delete table ip magnetar_silent0").size(), 2u);  // made, then removed
}

TEST_F(impairment_engine_test, a_failed_apply_is_undone_and_recorded) {
  auto& engine = engine_of({{.name = "wan", .from = {"gateways"}, .to = {"broker-0"}, .delay = 20ms}});
  host.failing = "ip rule add";
  EXPECT_FALSE(engine.apply(0));
  EXPECT_TRUE(host.forwarders.empty());
  EXPECT_EQ(host.containing("ip tuntap del dev mgd0").size(), 1u);
  const auto record = engine.records()[0];
  EXPECT_EQ(record.state, impairment_state::failed);
  EXPECT_NE(record.error.find("ip rule add"), std::string::npos);
  EXPECT_EQ(actions().back(), "wan failed");
}

TEST_F(impairment_engine_test, remove_all_removes_only_what_is_active) {
  auto& engine = engine_of({{.name = "a", .from = {"gateways"}, .to = {"broker-0"}, .delay = 5ms},
                            {.name = "b", .from = {"gateways"}, .to = {"broker-1"}, .delay = 5ms}});
  ASSERT_TRUE(engine.apply(1));
  EXPECT_TRUE(engine.remove_all().empty());
  EXPECT_TRUE(host.containing("stop forwarder mgd0").empty());
  EXPECT_EQ(host.containing("stop forwarder mgd1").size(), 1u);
  EXPECT_EQ(engine.records()[0].state, impairment_state::pending);
  EXPECT_EQ(engine.records()[1].state, impairment_state::ended);
}

TEST_F(impairment_engine_test, retransmissions_are_counted_per_endpoint_while_active) {
  auto& engine = engine_of({{.name = "lossy", .from = {"gateways"}, .to = {"broker-0"}, .loss_percent = 1}});
  host.answers["cat /proc/net/snmp"] = "Tcp: RtoAlgorithm RetransSegs\nTcp: 1 10\n";
  ASSERT_TRUE(engine.apply(0));
  host.answers["cat /proc/net/snmp"] = "Tcp: RtoAlgorithm RetransSegs\nTcp: 1 17\n";
  ASSERT_TRUE(engine.remove(0));
  EXPECT_EQ(engine.records()[0].retransmissions.at("gateways"), 7);
  EXPECT_EQ(engine.records()[0].retransmissions.at("broker-0"), 7);
}

TEST(tcp_retransmitted_segments, is_read_from_proc_net_snmp) {
  EXPECT_EQ(tcp_retransmitted_segments("Ip: Forwarding\nIp: 1\nTcp: RtoAlgorithm RtoMin RetransSegs InErrs\n"
                                       "Tcp: 1 200 42 0\n"),
            42);
  EXPECT_FALSE(tcp_retransmitted_segments("Ip: Forwarding\nIp: 1\n"));
}

}  // namespace
}  // namespace magnetar::perf
