// sender_shaping: the rate conditions on one sending node, as an htb tree on its eth0
// (in the node's own namespace), so that the sender's queue fills and its TCP feels the
// back-pressure, as behind a slow uplink:
//
//   eth0 root 1: htb (unclassified traffic goes out directly, unshaped)
//     class 1:<10+i> htb rate R ceil R     one per rate impairment i of this sender
//       qdisc <10+i>: bfifo limit Q        the bounded queue; beyond it, drops
//     filter u32 match ip dst <receiver>/32 -> 1:<10+i>
//
// Classes and handles are hexadecimal in tc; the numbers here are written in hex.
// Stateless, thread-safe.
#pragma once

#include "perf/network/impairment_plan.h"

#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <vector>

namespace magnetar::perf {

// The `tc -batch` script that builds `sender`'s eth0 tree for the rate conditions in
// `active` that it sends under, onto an eth0 without a root qdisc; empty when none (the
// engine deletes the previous tree first).
std::string sender_shaping_batch(std::string_view sender, const std::vector<const planned_impairment*>& active);

struct queue_counts {
  std::uint64_t packets = 0;
  std::uint64_t drops = 0;
};
// Each rate impairment's queue on this sender, by impairment index, from
// `tc -s -j qdisc show dev eth0`.
std::map<int, queue_counts> shaping_queues(std::string_view tc_json);

}  // namespace magnetar::perf
