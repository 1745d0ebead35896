// network_commands: the network subcommands of magnetar-perf (src/perf/network):
//
//   magnetar-perf netem-forward --device mgd0 --delay-us 20000 [--jitter-us 5000] [--reorder]
//       the delay forwarder the launcher starts in a router namespace (tun_forwarder.h)
//   magnetar-perf network-check [--keep-going]
//       checks every impairment against real namespaces with ping and iperf3 (network_check.h)
#pragma once

#include "perf/network/tun_forwarder.h"

#include <CLI/CLI.hpp>

namespace magnetar::perf {

struct network_commands {
  CLI::App* forward_command = nullptr;
  CLI::App* check_command = nullptr;
  forwarder_options forward;
  std::int64_t delay_us = 0;
  std::int64_t jitter_us = 0;
};

void add_network_commands(CLI::App& app, network_commands& commands);
// Runs the parsed one; -1 when neither was given.
int run_network_command(const network_commands& commands);

}  // namespace magnetar::perf
