// network_probe: what this kernel and its tools can do for network impairments, found in
// a throwaway namespace before the cluster starts (../NETWORK-NOTES-style facts differ
// between machines): nftables, htb, netem, TUN devices, ethtool, ss.
//
// The engine's methods need nftables (loss, partitions, silent disconnections), htb
// (rate), TUN (delay and jitter, where netem is absent, as here) and ss (resets). A plan
// whose impairment needs something missing is refused before anything starts.
//
// Thread-safety: free functions.
#pragma once

#include "base/result.h"
#include "perf/network/impairment_plan.h"

#include <nlohmann/json.hpp>

#include <string>
#include <vector>

namespace magnetar::perf {

struct network_capabilities {
  bool nftables = false;
  bool htb = false;
  bool netem = false;
  bool tun = false;
  bool ethtool = false;
  bool ss = false;

  nlohmann::json to_json() const;
};

// Probes in a namespace named `namespace_name` (made and deleted here).
result<network_capabilities> probe_network(const std::string& namespace_name);

// Why `network` cannot carry out `settings`' impairments, or empty.
std::string missing_capability(const network_capabilities& network, const std::vector<impairment_settings>& settings);

}  // namespace magnetar::perf
