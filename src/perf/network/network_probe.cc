#include "perf/network/network_probe.h"

#include "perf/cluster/network_namespace.h"

#include <fmt/format.h>

namespace magnetar::perf {
namespace {

bool works(const std::string& ns, std::vector<std::string> argv) {
  argv.insert(argv.begin(), {"ip", "netns", "exec", ns});
  return run_tool(argv).has_value();
}

}  // namespace

nlohmann::json network_capabilities::to_json() const {
  return {{"nftables", nftables}, {"htb", htb}, {"netem", netem}, {"tun", tun}, {"ethtool", ethtool}, {"ss", ss}};
}

result<network_capabilities> probe_network(const std::string& ns) {
  MAGNETAR_TRY(run_tool({"ip", "netns", "add", ns}));
  network_capabilities found;
  found.nftables = works(ns, {"nft", "add", "table", "ip", "magnetar_probe"});
  found.htb = works(ns, {"tc", "qdisc", "add", "dev", "lo", "root", "handle", "1:", "htb"});
  works(ns, {"tc", "qdisc", "del", "dev", "lo", "root"});
  found.netem = works(ns, {"tc", "qdisc", "add", "dev", "lo", "root", "netem", "delay", "1ms"});
  found.tun = works(ns, {"ip", "tuntap", "add", "dev", "mgprobe", "mode", "tun"});
  found.ethtool = works(ns, {"ethtool", "-k", "lo"});
  found.ss = works(ns, {"ss", "-Htn"});
  MAGNETAR_TRY(run_tool({"ip", "netns", "delete", ns}));
  return found;
}

std::string missing_capability(const network_capabilities& network, const std::vector<impairment_settings>& settings) {
  for (const auto& s : settings) {
    if (!s.enabled) continue;
    const auto need = [&](bool have, std::string_view what, std::string_view why) {
      return have ? std::string()
                  : fmt::format("network impairment {} needs {} ({}), which this machine lacks", s.name, what, why);
    };
    std::string missing;
    if (s.kind == impairment_kind::partition || s.kind == impairment_kind::silent_disconnect || s.loss_percent > 0) {
      missing = need(network.nftables, "nftables", "its drops");
    }
    if (missing.empty() && s.rate_bits > 0) missing = need(network.htb, "the htb qdisc", "its rate");
    if (missing.empty() && (s.delay.count() > 0 || s.jitter.count() > 0)) {
      missing = need(network.tun, "TUN devices", "its delay forwarder");
    }
    if (missing.empty() && (s.kind == impairment_kind::reset || s.kind == impairment_kind::silent_disconnect)) {
      missing = need(network.ss, "ss", "destroying sockets");
    }
    if (!missing.empty()) return missing;
  }
  return {};
}

}  // namespace magnetar::perf
