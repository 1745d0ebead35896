// router_rules: the router's nft script for the active impairments, and the drop counts
// read back from nft's JSON.
#include "perf/network/router_rules.h"
#include "perf/network/tests/plan_fixture.h"

#include <gtest/gtest.h>

namespace magnetar::perf {
namespace {

using testing::plan_of;

TEST(router_rules, no_active_impairment_only_removes_the_table) {
  EXPECT_EQ(router_ruleset({}), "table ip magnetar_impairments\ndelete table ip magnetar_impairments\n");
}

TEST(router_rules, a_partition_drops_each_directed_pair) {
  auto plan = plan_of({{.name = "cut",
                        .kind = impairment_kind::partition,
                        .from = {"gateways"},
                        .to = {"broker-0"},
                        .both_ways = true}});
  const auto script = router_ruleset({&plan[0]});
  EXPECT_NE(script.find("ip saddr . ip daddr { 10.99.4.2 . 10.99.2.2, 10.99.2.2 . 10.99.4.2 } counter drop "
                        "comment \"partition:cut\""),
            std::string::npos)
      << script;
  EXPECT_NE(script.find("hook forward priority -10"), std::string::npos);
}

TEST(router_rules, partitions_come_before_loss) {
  auto plan = plan_of({{.name = "lossy", .from = {"clients"}, .to = {"brokers"}, .loss_percent = 1},
                       {.name = "cut", .kind = impairment_kind::partition, .from = {"gateways"}, .to = {"broker-0"}}});
  const auto script = router_ruleset({&plan[0], &plan[1]});
  EXPECT_LT(script.find("partition:cut"), script.find("loss:lossy")) << script;
}

TEST(router_rules, independent_loss_is_one_numgen_rule_on_node_links) {
  auto plan = plan_of({{.name = "lossy", .from = {"gateways"}, .to = {"broker-0"}, .loss_percent = 1}});
  const auto script = router_ruleset({&plan[0]});
  EXPECT_NE(script.find("iifname \"v-*\" ip saddr . ip daddr { 10.99.4.2 . 10.99.2.2 } numgen random mod 1000000 "
                        "< 10000 counter drop comment \"loss:lossy\""),
            std::string::npos)
      << script;
}

TEST(router_rules, burst_loss_uses_a_gilbert_elliott_set) {
  // loss 1 %, bursts of 4: leave the bad state with r = 0.25, enter with p = 0.01 * 0.25 / 0.99.
  auto plan =
      plan_of({{.name = "bursty", .from = {"gateways"}, .to = {"broker-0"}, .loss_percent = 1, .loss_burst = 4}});
  const auto script = router_ruleset({&plan[0]});
  EXPECT_NE(script.find("set ge0 { type ipv4_addr . ipv4_addr; size 65535; flags dynamic; }"), std::string::npos);
  EXPECT_NE(script.find("@ge0 numgen random mod 1000000 < 250000 delete @ge0"), std::string::npos) << script;
  EXPECT_NE(script.find("ip saddr . ip daddr @ge0 counter drop comment \"loss:bursty\""), std::string::npos);
  EXPECT_NE(script.find("numgen random mod 1000000 < 2525 add @ge0"), std::string::npos) << script;
}

TEST(router_rules, a_rate_or_delay_alone_makes_no_rule) {
  auto plan = plan_of({{.name = "slow",
                        .from = {"gateways"},
                        .to = {"broker-0"},
                        .delay = std::chrono::milliseconds(5),
                        .rate_bits = 1'000'000}});
  EXPECT_EQ(router_ruleset({&plan[0]}), router_ruleset({}));
}

TEST(router_rules, drops_are_summed_per_impairment_from_nft_json) {
  const auto json = R"({"nftables": [{"metainfo": {}},
    {"rule": {"comment": "loss:bursty", "expr": [{"counter": {"packets": 3, "bytes": 300}}, {"drop": null}]}},
    {"rule": {"comment": "loss:bursty", "expr": [{"counter": {"packets": 4, "bytes": 400}}, {"drop": null}]}},
    {"rule": {"comment": "partition:cut", "expr": [{"counter": {"packets": 9, "bytes": 900}}]}},
    {"rule": {"expr": [{"counter": {"packets": 100, "bytes": 1}}]}}]})";
  const auto drops = router_drops(json);
  EXPECT_EQ(drops.at("bursty"), 7u);
  EXPECT_EQ(drops.at("cut"), 9u);
  EXPECT_EQ(drops.size(), 2u);
}

}  // namespace
}  // namespace magnetar::perf
