// run_target: what a run drives, started and stopped for it: a standalone (one broker,
// one bookie, the default), a cluster of processes in network namespaces (any other
// `cluster` section; on 127.0.0.1 when namespaces cannot be made), or nothing when the
// run was given --service-url and --admin-url.
//
//   auto target = run_target::start(settings.cluster, settings.network, options, run.root, id, console);
//   target->service_url();                          // for the workloads
//   target->client_namespace("gateways");           // where the gateways run ("" on loopback)
//   target->stop();                                 // or leave_running()
//
// Thread-safety: one owner. The destructor stops what was started.
#pragma once

#include "base/result.h"
#include "perf/cluster/launched_cluster.h"
#include "perf/cluster/standalone_process.h"
#include "perf/launcher/console_log.h"
#include "perf/launcher/launcher_options.h"
#include "perf/launcher/topic_stats_sampler.h"
#include "perf/scenario/settings.h"

#include <filesystem>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>

namespace magnetar::perf {

class run_target {
 public:
  // What the scenario needs before anything starts: the magnetar binary for a standalone or
  // a cluster, and a cluster that fits (check_cluster). Usage problems, for the console.
  // A network section needs a cluster in namespaces: not given URLs, not --no-namespaces.
  // A remote cluster is one the launcher starts: not with given URLs.
  static result<void> check(const cluster_settings& cluster, const network_settings& network,
                            const launcher_options& options);

  // `run_id` names the cluster's namespaces. A failure says what did not start.
  // With network impairments, even one broker and one bookie run as a cluster, and a
  // machine without namespaces fails the start with the reason.
  static result<std::unique_ptr<run_target>> start(const cluster_settings& cluster, const network_settings& network,
                                                   const launcher_options& options,
                                                   const std::filesystem::path& run_dir, std::string_view run_id,
                                                   console_log& console);

  const std::string& service_url() const { return _service_url; }
  const std::string& admin_url() const { return _admin_url; }
  // A started cluster's remote cluster (cluster.remote): its URLs, empty without one.
  bool has_remote() const { return _cluster && _cluster->layout().has_remote(); }
  std::string remote_service_url() const { return has_remote() ? _cluster->remote_service_url() : std::string(); }
  std::string remote_admin_url() const { return has_remote() ? _cluster->remote_admin_url() : std::string(); }
  bool is_standalone() const { return _standalone.has_value(); }
  bool is_cluster() const { return _cluster != nullptr; }
  // The cluster's namespaces, or nullptr (a standalone, given URLs, or on 127.0.0.1).
  const cluster_network* network() const;
  // The namespace file of a client node (gateways, applications, monitor,
  // remote-applications); empty when the run shares the launcher's network.
  std::filesystem::path client_namespace(std::string_view node) const;
  // Runs `work` where the launcher's own requests (admin, stats) come from.
  result<void> from_monitor(const std::function<void()>& work) const;
  // Whose /metrics the sampler reads: each broker (the standalone as `standalone`), and
  // each bookie of a cluster.
  std::vector<metrics_endpoint> broker_metrics() const;
  std::vector<metrics_endpoint> bookie_metrics() const;
  // Cluster nodes that ended since the last call (name and exit code), for events.
  std::vector<std::pair<std::string, int>> newly_exited_nodes();

  // Stops it and says how it went on the console (warnings only: the run's verdict is
  // about the messages).
  void stop(console_log& console);
  // A started cluster keeps running; prints how to reach it and how to stop it.
  void leave_running(console_log& console, const std::filesystem::path& run_dir);

 private:
  run_target() = default;

  std::string _service_url;
  std::string _admin_url;
  std::optional<standalone_process> _standalone;
  std::unique_ptr<launched_cluster> _cluster;
  std::vector<std::string> _reported_exits;
};

}  // namespace magnetar::perf
