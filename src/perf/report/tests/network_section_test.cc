// network_section: the Network conditions section read from a network summary.
#include "perf/report/network_section.h"

#include <gtest/gtest.h>

namespace magnetar::perf::report {
namespace {

const char* summary = R"json({
  "probe": {"netem": false, "tun": true},
  "timesRelativeTo": "measurement-started",
  "impairments": [
    {"name": "wan", "kind": "condition", "method": "delay: TUN forwarder mgd0 in the router (no netem here)",
     "from": ["clients"], "to": ["brokers"], "bothWays": true, "pairs": [],
     "settings": {"delayMicros": 40000, "lossPercent": 0.5}, "state": "ended",
     "appliedMillis": -5200, "removedMillis": 31000, "droppedPackets": 120, "queuedPackets": 0,
     "retransmissions": {"gateways": 80, "broker-0": 0},
     "forwarder": {"packets": 1000, "bytes": 2000000, "latenessP50Micros": 12, "latenessP99Micros": 70,
                   "dropped": 0}},
    {"name": "rst", "kind": "reset", "method": "reset: ss -K", "from": ["gateways"], "to": ["brokers"],
     "bothWays": false, "settings": {"startMillis": 10000}, "state": "never-applied", "droppedPackets": 0,
     "retransmissions": {}}
  ]})json";

std::string markdown_of(const section& s) { return render_markdown(document{"t", {s}}); }

TEST(network_section, lists_each_impairment_with_its_times_and_counts) {
  const auto text = markdown_of(network_section(nlohmann::json::parse(summary)));
  EXPECT_NE(
      text.find("| `wan` | condition | clients \\<-> brokers | delay 40 ms, loss 0.5 % | -5.2 | 31.0 | ended | 120"),
      std::string::npos)
      << text;
  EXPECT_NE(text.find("gateways 80"), std::string::npos);
  EXPECT_EQ(text.find("broker-0 0"), std::string::npos);  // zero retransmissions are left out
}

TEST(network_section, an_impairment_that_never_acted_stands_out) {
  const auto text = markdown_of(network_section(nlohmann::json::parse(summary)));
  EXPECT_NE(text.find("| `rst` | reset | gateways -> brokers | – | – | – | **never-applied**"), std::string::npos)
      << text;
}

TEST(network_section, shows_the_forwarder_figures_and_where_to_look) {
  const auto text = markdown_of(network_section(nlohmann::json::parse(summary)));
  EXPECT_NE(text.find("released late by p50 12 us, p99 70 us"), std::string::npos) << text;
  EXPECT_NE(text.find("[network-events.jsonl](network-events.jsonl)"), std::string::npos);
}

}  // namespace
}  // namespace magnetar::perf::report
