// socket_faults: what a reset and a silent disconnection do to live TCP connections,
// as commands for the side that acts (the impairment's `from` nodes, in their own
// namespaces):
//
// - reset: `ss -K` (INET_DIAG_DESTROY) on the connections to each receiver; the local
//   socket fails at once and the peer gets an RST.
// - silent disconnection: the live 4-tuples to the receivers go into an nft set whose
//   packets are dropped both ways, then the local sockets are destroyed (their RST is
//   dropped too). The sender reconnects on new ports at once; the peer keeps a half-open
//   connection until its keep-alive or its next write's retransmissions give up, or until
//   the set is removed and its next retransmission draws an RST, as after a NAT or a
//   firewall forgot the connection.
//
// Stateless, thread-safe.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace magnetar::perf {

struct tcp_tuple {
  std::string local_address;
  std::uint16_t local_port = 0;
  std::string peer_address;
  std::uint16_t peer_port = 0;
};

// The established connections in `ss -Htn state established` output.
std::vector<tcp_tuple> parse_established(std::string_view ss_output);

// `ss` arguments that list (or, with kill, destroy) the established TCP connections to
// `peer_address`.
std::vector<std::string> ss_to_peer(std::string_view peer_address, bool kill);

// The nft table (by its name) that drops `tuples` both ways on this node, as an
// `nft -f` script replacing any table of that name; and its removal.
std::string silent_disconnect_ruleset(std::string_view table, const std::vector<tcp_tuple>& tuples);
std::string table_removal(std::string_view table);

}  // namespace magnetar::perf
