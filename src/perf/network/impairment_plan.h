// impairment_plan: a scenario's network impairments laid onto the launched cluster's
// network: for each one, the nodes at each end, the directed pairs it acts on, and the
// names of what it makes on the router (a TUN device, a routing table, nft sets). The
// engine (impairment_engine.h) acts from this plan; nothing here touches the system.
//
//   auto plan = plan_impairments(settings.network, settings.cluster, network.nodes());
//   plan.value()[0].pairs   // {broker-0 -> bookie-0, ...}
//
// Plain values.
#pragma once

#include "base/result.h"
#include "perf/cluster/cluster_network.h"
#include "perf/scenario/settings.h"

#include <string>
#include <vector>

namespace magnetar::perf {

struct directed_pair {
  network_node from;
  network_node to;
};

struct planned_impairment {
  impairment_settings settings;
  int index = 0;  // among the plan's impairments; names what it makes
  std::vector<network_node> from_nodes;
  std::vector<network_node> to_nodes;
  std::vector<directed_pair> pairs;  // every sender -> receiver it acts on

  // The nodes whose sending it impairs (loss, jitter and rate want their offloads off).
  std::vector<network_node> senders() const;
  // The router's TUN device and routing table for a delayed impairment.
  std::string tun_device() const { return "mgd" + std::to_string(index); }
  int route_table() const { return 100 + index; }
  // What acts on the packets, in a line, for the run's record ("delay: TUN forwarder ...").
  std::string method() const;
};

// Resolves every enabled impairment's endpoints to `nodes` (the cluster network's).
result<std::vector<planned_impairment>> plan_impairments(const network_settings& network,
                                                         const cluster_settings& cluster,
                                                         const std::vector<network_node>& nodes);

}  // namespace magnetar::perf
