// delay_path: how a delayed impairment's packets reach its forwarder and come back, in
// the router namespace (tun_forwarder.h holds them):
//
//   ip tuntap add dev mgd<i> mode tun; ip link set mgd<i> txqueuelen 10000 up
//   rp_filter 0 on all and on mgd<i>    (the packets come back in on mgd<i> with sources
//                                        the main table routes elsewhere; strict or loose
//                                        reverse-path filtering drops them all)
//   ip route add default dev mgd<i> table <100+i>
//   ip rule add iif v-<from> to <to>/32 table <100+i> pref <1000+i>   per directed pair
//
// The forwarder writes each packet back into mgd<i>; the kernel then routes it by the
// main table to the receiver's link. Teardown deletes the rules first (a rule to a device
// nobody reads is a black hole), then the forwarder stops, then the device goes.
//
// Stateless, thread-safe.
#pragma once

#include "perf/network/impairment_plan.h"

#include <string>
#include <vector>

namespace magnetar::perf {

using command_list = std::vector<std::vector<std::string>>;

// Before the forwarder starts: the device, its reverse-path filter, its table's route.
command_list delay_device_setup(const planned_impairment& impairment);
// Once the forwarder reads the device: the rules that steer the pairs into it.
command_list delay_rules_setup(const planned_impairment& impairment);
// The rules' removal (each may fail alone when it was never added).
command_list delay_rules_removal(const planned_impairment& impairment);
// After the forwarder stopped.
command_list delay_device_removal(const planned_impairment& impairment);

}  // namespace magnetar::perf
