// launched_cluster: a Pulsar-style cluster that magnetar-perf starts for a run: ZooKeeper
// (Debian's package; one server or an ensemble of three), bookies and brokers, each a
// process in a network namespace of its own (cluster_network.h), or all on 127.0.0.1
// with ports of their own when namespaces cannot be made.
//
//   auto cluster = launched_cluster::start({.magnetar_bin = bin, .run_dir = run, .cluster = settings.cluster,
//                                           .name_prefix = "mg-1a2b3c4d-", .in_namespaces = true});
//   cluster.value()->service_url();     // what the workloads get
//   cluster.value()->stop();            // brokers, bookies, ZooKeeper, then the network
//
// Start order: ZooKeeper (until every server answers `srvr` with its mode), the bookies
// (their ready files), `magnetar initialize-cluster-metadata`, the brokers (their ready
// files); cluster.json goes into the run directory once all are up (cluster_json.h).
// With cluster.remote, a second cluster ("remote", its nodes named remote-*) starts beside
// the first, role by role: its own ZooKeeper, bookies and brokers, its metadata
// initialized after the first's with the first's ZooKeeper as configuration store.
// Each node's files (configuration, data, log) are in <run>/cluster/<node>/.
//
// Whatever happens, nothing outlives the object unless leave_running() was called: a
// failed start stops what it started, and the destructor stops the rest (processes by
// the pids it started, then the namespaces).
//
// Thread-safety: one owner.
#pragma once

#include "base/result.h"
#include "perf/cluster/child_process.h"
#include "perf/cluster/cluster_layout.h"
#include "perf/cluster/cluster_network.h"

#include <chrono>
#include <filesystem>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace magnetar::perf {

struct launched_cluster_options {
  std::filesystem::path magnetar_bin;
  std::filesystem::path run_dir;
  cluster_settings cluster;
  // Names every namespace ("mg-<run id's first 8>-"), so runs side by side don't meet.
  std::string name_prefix;
  bool in_namespaces = true;
  std::chrono::seconds ready_timeout{120};
  std::function<void(std::string_view)> print = [](std::string_view) {};
};

// One started node.
struct node_process {
  const cluster_node* node = nullptr;
  child_process process;
  std::filesystem::path log_file;  // the node's own log (the process's output is beside it)
};

class launched_cluster {
 public:
  // The nodes' ZooKeeper servers need java and Debian's zookeeper.jar: why they cannot
  // start here, or empty.
  static std::string unavailable_reason();

  static result<std::unique_ptr<launched_cluster>> start(const launched_cluster_options& options);

  launched_cluster(const launched_cluster&) = delete;
  launched_cluster& operator=(const launched_cluster&) = delete;
  ~launched_cluster();

  const cluster_layout& layout() const { return _layout; }
  std::string service_url() const { return _layout.service_url(); }
  std::string admin_url() const { return _layout.admin_url(); }
  // The remote cluster's (cluster.remote); the layout must have one.
  std::string remote_service_url() const { return _layout.service_url(true); }
  std::string remote_admin_url() const { return _layout.admin_url(true); }
  // The namespace file of a client node (gateways, applications, monitor); empty on
  // loopback, where every process shares the launcher's network.
  std::filesystem::path namespace_of(std::string_view node) const;
  const std::optional<cluster_network>& network() const { return _network; }
  const std::vector<node_process>& processes() const { return _processes; }
  // How long the start took, for the console and the report.
  std::chrono::milliseconds setup_time() const { return _setup_time; }

  // Nodes whose process has ended (a crash, or a fault's kill), with their exit codes.
  std::vector<std::pair<std::string, int>> exited_nodes();

  // Stops the brokers (SIGTERM: they hand their bundles over), the bookies, ZooKeeper,
  // and deletes the namespaces; the first problem (a non-zero exit, a namespace left).
  result<void> stop();
  // Forget every process and namespace: they run on (`magnetar-perf cluster down`).
  void leave_running();

 private:
  explicit launched_cluster(cluster_layout layout) : _layout(std::move(layout)) {}
  result<void> start_nodes(const launched_cluster_options& options);
  result<void> start_zookeeper(const launched_cluster_options& options, std::chrono::steady_clock::time_point deadline);
  result<void> start_bookies(const launched_cluster_options& options, std::chrono::steady_clock::time_point deadline);
  // `magnetar initialize-cluster-metadata` for the first cluster, or for the remote one.
  result<void> initialize_metadata(const launched_cluster_options& options,
                                   std::chrono::steady_clock::time_point deadline, bool remote);
  // The role's nodes of the first cluster, then the remote cluster's.
  std::vector<const cluster_node*> every(node_role role) const;
  result<void> start_brokers(const launched_cluster_options& options, std::chrono::steady_clock::time_point deadline);
  result<child_process> spawn(const cluster_node& node, child_spec spec);
  // Waits for the ready file of every process from index `first` on.
  result<void> wait_until_ready(std::size_t first, const std::filesystem::path& run_dir,
                                std::chrono::steady_clock::time_point deadline);
  // Stops the processes of a role, all at once (SIGTERM to each, then the waits).
  result<void> stop_role(node_role role);

  cluster_layout _layout;
  // Declared before the processes: destroyed after them, as a namespace outlives its
  // processes.
  std::optional<cluster_network> _network;
  std::vector<node_process> _processes;
  std::chrono::milliseconds _setup_time{0};
};

// The mode a ZooKeeper server reports to `srvr` ("standalone", "leader", "follower"),
// or empty when it does not answer (yet). Connects from the calling thread's namespace.
std::string zookeeper_mode(const std::string& address, int port);

}  // namespace magnetar::perf
