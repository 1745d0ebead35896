// router_rules: the nftables table in the router namespace that drops packets for the
// partitions and the loss of the impairments active now. Every change replaces the whole
// table in one `nft -f` transaction (the script below starts by deleting it), so no
// packet ever meets half a ruleset.
//
//   table ip magnetar_impairments {
//     set ge<i> { ipv4_addr . ipv4_addr; dynamic }   # pairs in a loss burst (Gilbert-Elliott)
//     chain forward {                                # hook forward, before anything else
//       <partitions: drop per directed pair>         # first: a partition beats any condition
//       <loss: numgen random per directed pair>      # only on packets from a node's link
//     }
//   }
//
// Loss matches `iifname "v-*"` (the router's links to the nodes) so that a packet that
// also crosses a delay forwarder (out to a TUN device and back in) is judged once, and
// never on the sender's own egress (its stack would see ENOBUFS, not a lost packet).
// Burst loss follows Gilbert-Elliott: a pair enters the bad state with probability p and
// leaves it with r; in the bad state every packet is dropped. For a loss L and mean
// burst B: r = 1/B, p = L r / (1 - L).
//
// Stateless, thread-safe.
#pragma once

#include "perf/network/impairment_plan.h"

#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <vector>

namespace magnetar::perf {

inline constexpr std::string_view router_table = "magnetar_impairments";

// The `nft -f` script that makes the table hold exactly `active`'s rules (only those of
// partitions and conditions with loss make any), or removes it when none.
std::string router_ruleset(const std::vector<const planned_impairment*>& active);

// Packets dropped so far by each impairment's rules, by name, from `nft -j list table`.
std::map<std::string, std::uint64_t> router_drops(std::string_view nft_json);

}  // namespace magnetar::perf
