// cluster_json: <run>/cluster.json, what a launched cluster is made of and where each
// part runs, for people (the report's Settings), for the next tools (network conditions
// map endpoint names to these namespaces and addresses) and for `magnetar-perf cluster
// down`, which stops a cluster left running from it:
//
//   {"clusterName": "local", "inNamespaces": true, "router": "mg-1a2b3c4d-router",
//    "serviceUrl": "pulsar://10.99.5.2:6650", "adminUrl": "http://10.99.5.2:8080",
//    "zookeeper": "10.99.1.2:2181", "setupMillis": 4200,
//    "nodes": [{"name": "broker-0", "role": "broker", "namespace": "mg-1a2b3c4d-broker-0",
//               "address": "10.99.5.2", "ports": {"service": 6650, "http": 8080},
//               "pid": 1234, "log": "cluster/broker-0/broker.log"}, ...]}
//
// With a remote cluster (geo-replication) each node names its cluster ("cluster": "local"
// or "remote") and `remote` holds the remote cluster's name, URLs, ZooKeeper and the
// configuration store it shares. `namespace` and `router` are empty on loopback; the clients' nodes (gateways,
// applications, monitor) have no pid and no ports. Log paths are relative to the run
// directory.
//
// Thread-safety: free functions.
#pragma once

#include "base/result.h"

#include <chrono>
#include <filesystem>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

namespace magnetar::perf {

class launched_cluster;

result<void> write_cluster_json(const std::filesystem::path& file, const launched_cluster& cluster);

// What `cluster down` needs from the file.
struct recorded_cluster {
  struct process {
    std::string name;
    std::string role;
    int pid = 0;
  };
  std::vector<process> processes;
  std::vector<std::string> namespaces;  // the nodes', then the router's
};
result<recorded_cluster> read_cluster_json(const std::filesystem::path& file);

// `magnetar-perf cluster down RUN_DIR`: stops the processes cluster.json names (SIGTERM,
// SIGKILL after `grace`), only those whose command line still names the run directory
// (a pid can be reused), then deletes the namespaces. What it did goes to `print`.
result<void> cluster_down(const std::filesystem::path& run_dir, std::chrono::milliseconds grace,
                          const std::function<void(std::string_view)>& print);

}  // namespace magnetar::perf
