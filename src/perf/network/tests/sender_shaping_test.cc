// sender_shaping: the htb tree for one sender's rate conditions, and its queues' counts.
#include "perf/network/sender_shaping.h"
#include "perf/network/tests/plan_fixture.h"

#include <gtest/gtest.h>

namespace magnetar::perf {
namespace {

using testing::plan_of;

TEST(sender_shaping, a_rate_is_a_class_with_a_bounded_queue_filtered_by_receiver) {
  auto plan = plan_of(
      {{.name = "uplink", .from = {"gateways"}, .to = {"brokers"}, .rate_bits = 20'000'000, .queue_bytes = 64 * 1024}});
  const auto batch = sender_shaping_batch("gateways", {&plan[0]});
  EXPECT_EQ(batch,
            "qdisc add dev eth0 root handle 1: htb\n"
            "class add dev eth0 parent 1: classid 1:10 htb rate 20000000bit ceil 20000000bit\n"
            "qdisc add dev eth0 parent 1:10 handle 10: bfifo limit 65536\n"
            "filter add dev eth0 parent 1: protocol ip prio 1 u32 match ip dst 10.99.2.2/32 flowid 1:10\n"
            "filter add dev eth0 parent 1: protocol ip prio 1 u32 match ip dst 10.99.3.2/32 flowid 1:10\n");
}

TEST(sender_shaping, a_node_that_does_not_send_under_it_gets_no_tree) {
  auto plan = plan_of({{.name = "uplink", .from = {"gateways"}, .to = {"brokers"}, .rate_bits = 20'000'000}});
  EXPECT_EQ(sender_shaping_batch("broker-0", {&plan[0]}), "");
}

TEST(sender_shaping, both_ways_shapes_each_side_towards_the_other) {
  auto plan =
      plan_of({{.name = "link", .from = {"gateways"}, .to = {"broker-0"}, .both_ways = true, .rate_bits = 1'000'000}});
  EXPECT_NE(sender_shaping_batch("broker-0", {&plan[0]}).find("match ip dst 10.99.4.2/32"), std::string::npos);
}

TEST(sender_shaping, the_default_queue_holds_50_ms_at_the_rate) {
  auto plan = plan_of({{.name = "fast", .from = {"gateways"}, .to = {"broker-0"}, .rate_bits = 100'000'000}});
  EXPECT_NE(sender_shaping_batch("gateways", {&plan[0]}).find("bfifo limit 625000"), std::string::npos);
}

TEST(sender_shaping, queue_counts_come_from_tc_json_by_impairment) {
  const auto json = R"([{"kind": "htb", "handle": "1:", "packets": 50, "drops": 0},
    {"kind": "bfifo", "handle": "11:", "packets": 40, "drops": 3}])";
  const auto queues = shaping_queues(json);
  ASSERT_EQ(queues.size(), 1u);
  EXPECT_EQ(queues.at(1).packets, 40u);
  EXPECT_EQ(queues.at(1).drops, 3u);
}

}  // namespace
}  // namespace magnetar::perf
