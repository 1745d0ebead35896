#include "perf/network/impairment_plan.h"

#include "base/errc.h"
#include "perf/scenario/network_endpoints.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>

namespace magnetar::perf {
namespace {

result<std::vector<network_node>> nodes_of(const std::vector<std::string>& endpoints, const cluster_settings& cluster,
                                           const std::vector<network_node>& nodes) {
  std::vector<network_node> out;
  for (const auto& endpoint : endpoints) {
    auto names = endpoint_nodes(endpoint, cluster);
    if (!names) return names.error();
    for (const auto& name : names.value()) {
      const auto found = std::find_if(nodes.begin(), nodes.end(), [&](const auto& n) { return n.name == name; });
      if (found == nodes.end()) {
        return fail(base::errc::invalid_argument, fmt::format("{} has no namespace in this cluster", name));
      }
      const bool seen = std::any_of(out.begin(), out.end(), [&](const auto& n) { return n.name == name; });
      if (!seen) out.push_back(*found);
    }
  }
  return out;
}

}  // namespace

std::vector<network_node> planned_impairment::senders() const {
  std::vector<network_node> out;
  for (const auto& pair : pairs) {
    const bool seen = std::any_of(out.begin(), out.end(), [&](const auto& n) { return n.name == pair.from.name; });
    if (!seen) out.push_back(pair.from);
  }
  return out;
}

std::string planned_impairment::method() const {
  const auto& s = settings;
  std::vector<std::string> parts;
  switch (s.kind) {
    case impairment_kind::partition: parts.emplace_back("partition: nftables drop in the router"); break;
    case impairment_kind::reset: parts.emplace_back("reset: ss -K (INET_DIAG_DESTROY) on the from side"); break;
    case impairment_kind::silent_disconnect:
      parts.emplace_back("silentDisconnect: nftables drop of the live 4-tuples and ss -K on the from side");
      break;
    case impairment_kind::condition:
      if (s.delay.count() > 0 || s.jitter.count() > 0) {
        parts.push_back(fmt::format("delay: TUN forwarder {} in the router (no netem here)", tun_device()));
      }
      if (s.loss_percent > 0) {
        parts.emplace_back(s.loss_burst > 0 ? "loss: nftables Gilbert-Elliott sets in the router"
                                            : "loss: nftables numgen in the router");
      }
      if (s.rate_bits > 0) parts.emplace_back("rate: htb + bfifo on each sender's eth0");
      break;
  }
  return fmt::format("{}", fmt::join(parts, "; "));
}

result<std::vector<planned_impairment>> plan_impairments(const network_settings& network,
                                                         const cluster_settings& cluster,
                                                         const std::vector<network_node>& nodes) {
  std::vector<planned_impairment> plan;
  for (const auto& settings : network.impairments) {
    if (!settings.enabled) continue;
    planned_impairment p{.settings = settings, .index = static_cast<int>(plan.size())};
    auto from = nodes_of(settings.from, cluster, nodes);
    if (!from) return from.error();
    auto to = nodes_of(settings.to, cluster, nodes);
    if (!to) return to.error();
    p.from_nodes = std::move(from).value();
    p.to_nodes = std::move(to).value();
    for (const auto& a : p.from_nodes) {
      for (const auto& b : p.to_nodes) {
        if (a.name == b.name) continue;
        p.pairs.push_back({a, b});
        if (settings.both_ways) p.pairs.push_back({b, a});
      }
    }
    plan.push_back(std::move(p));
  }
  return plan;
}

}  // namespace magnetar::perf
