// socket_faults: ss's output read into 4-tuples, and the silent disconnection's table.
#include "perf/network/socket_faults.h"

#include <gtest/gtest.h>

namespace magnetar::perf {
namespace {

TEST(socket_faults, established_connections_are_read_from_ss) {
  const auto tuples = parse_established(
      "0      0          10.99.4.2:45678      10.99.2.2:6650\n"
      "0      12         10.99.4.2:45680      10.99.3.2:6650   users:((\"magnetar-perf\",pid=1,fd=9))\n"
      "0      0      [::ffff:10.99.4.2]:1 [::ffff:10.99.2.2]:2\n"
      "garbage\n");
  ASSERT_EQ(tuples.size(), 2u);
  EXPECT_EQ(tuples[0].local_address, "10.99.4.2");
  EXPECT_EQ(tuples[0].local_port, 45678);
  EXPECT_EQ(tuples[0].peer_address, "10.99.2.2");
  EXPECT_EQ(tuples[0].peer_port, 6650);
  EXPECT_EQ(tuples[1].local_port, 45680);
}

TEST(socket_faults, ss_is_always_asked_for_tcp_only) {
  EXPECT_EQ(ss_to_peer("10.99.2.2", true),
            (std::vector<std::string>{"ss", "-K", "-Htn", "state", "established", "dst", "10.99.2.2"}));
  EXPECT_EQ(ss_to_peer("10.99.2.2", false),
            (std::vector<std::string>{"ss", "-Htn", "state", "established", "dst", "10.99.2.2"}));
}

TEST(socket_faults, the_forgotten_tuples_are_dropped_both_ways) {
  const auto script = silent_disconnect_ruleset("t", {{"10.99.4.2", 45678, "10.99.2.2", 6650}});
  EXPECT_EQ(script.find("table ip t\ndelete table ip t\n"), 0u);
  EXPECT_NE(script.find("elements = { 10.99.4.2 . 45678 . 10.99.2.2 . 6650 }"), std::string::npos);
  EXPECT_NE(script.find("hook output priority -10; policy accept;\n    ip saddr . tcp sport . ip daddr . tcp dport "
                        "@forgotten counter drop"),
            std::string::npos);
  EXPECT_NE(script.find("hook input priority -10; policy accept;\n    ip daddr . tcp dport . ip saddr . tcp sport "
                        "@forgotten counter drop"),
            std::string::npos);
}

TEST(socket_faults, no_tuples_makes_an_empty_set) {
  EXPECT_EQ(silent_disconnect_ruleset("t", {}).find("elements"), std::string::npos);
}

}  // namespace
}  // namespace magnetar::perf
