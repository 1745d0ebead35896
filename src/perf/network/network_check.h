// network_check: `magnetar-perf network-check`, which shows each impairment method acting
// on real packets between real namespaces, and cleaned up after. It makes three nodes
// (gateways, broker-0, bookie-0) behind a router, as a launched cluster has, and checks:
//
//   delay      20 ms on gateways -> broker-0: ping's RTT there ~20 ms, to bookie-0 not
//   partition  a timed cut between gateways and broker-0: ping's losses in one gap of
//              the right length
//   jitter     10 ms +- 5 ms: UDP sequence order kept, and broken with reorder
//   loss       1 %: 40000 UDP datagrams, 0.7-1.3 % of them lost
//   rate       20 Mbit/s: iperf3's TCP goodput within 10 %
//   reset      both ends of a TCP connection fail at once
//   silent     each direction: the from side fails at once, the other side's connection
//              stays up until the drops go, then its next write draws an RST
//   cleanup    after each: no nft table, qdisc, TUN device or ip rule left
//
// and prints the delay forwarder's throughput (iperf3 through 20 ms) and its accuracy.
// Exit code 0 when every check passed, 1 otherwise, 77 when this machine cannot make
// network namespaces (CTest's skip code).
#pragma once

namespace magnetar::perf {

int run_network_check();

}  // namespace magnetar::perf
