#include "perf/network/delay_path.h"

#include <fmt/format.h>

namespace magnetar::perf {
namespace {

std::vector<std::string> rule(const planned_impairment& i, const directed_pair& pair, const char* verb) {
  return {"ip",
          "rule",
          verb,
          "iif",
          pair.from.router_link,
          "to",
          pair.to.address + "/32",
          "table",
          std::to_string(i.route_table()),
          "pref",
          std::to_string(1000 + i.index)};
}

}  // namespace

command_list delay_device_setup(const planned_impairment& i) {
  const auto device = i.tun_device();
  return {{"ip", "tuntap", "add", "dev", device, "mode", "tun"},
          {"sysctl", "-qw", "net.ipv4.conf.all.rp_filter=0", fmt::format("net.ipv4.conf.{}.rp_filter=0", device)},
          // A TCP window arrives as a burst; the default queue of 500 packets in front of
          // the forwarder would drop most of it at Gbit/s rates.
          {"ip", "link", "set", device, "txqueuelen", "10000", "up"},
          {"ip", "route", "add", "default", "dev", device, "table", std::to_string(i.route_table())}};
}

command_list delay_rules_setup(const planned_impairment& i) {
  command_list commands;
  for (const auto& pair : i.pairs) commands.push_back(rule(i, pair, "add"));
  return commands;
}

command_list delay_rules_removal(const planned_impairment& i) {
  command_list commands;
  for (const auto& pair : i.pairs) commands.push_back(rule(i, pair, "del"));
  return commands;
}

command_list delay_device_removal(const planned_impairment& i) {
  return {{"ip", "tuntap", "del", "dev", i.tun_device(), "mode", "tun"}};
}

}  // namespace magnetar::perf
