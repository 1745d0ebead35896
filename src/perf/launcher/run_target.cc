#include "perf/launcher/run_target.h"

#include "base/errc.h"
#include "perf/cluster/network_namespace.h"
#include "perf/scenario/scenario_loader.h"

#include <fmt/format.h>

#include <algorithm>

namespace magnetar::perf {

namespace fs = std::filesystem;

result<void> run_target::check(const cluster_settings& cluster, const network_settings& network,
                               const launcher_options& options) {
  if (network.any_enabled() && options.service_url) {
    return fail(base::errc::invalid_argument,
                "the network section acts on a cluster the launcher starts in network namespaces; with "
                "--service-url there is none (drop one of them)");
  }
  if (network.any_enabled() && options.no_namespaces) {
    return fail(base::errc::invalid_argument,
                "the network section needs the cluster in network namespaces; --no-namespaces runs it on 127.0.0.1");
  }
  if (cluster.remote && options.service_url) {
    return fail(base::errc::invalid_argument,
                "cluster.remote (geo-replication) starts two clusters of the launcher's own; with --service-url there "
                "is none (drop one of them)");
  }
  if (options.service_url) return success();
  MAGNETAR_TRY(find_magnetar_binary(options.magnetar_bin));
  if (!cluster.standalone()) {
    MAGNETAR_TRY(check_cluster(cluster));
  }
  return success();
}

result<std::unique_ptr<run_target>> run_target::start(const cluster_settings& cluster, const network_settings& network,
                                                      const launcher_options& options, const fs::path& run_dir,
                                                      std::string_view run_id, console_log& console) {
  std::unique_ptr<run_target> target(new run_target());
  if (options.service_url) {
    target->_service_url = *options.service_url;
    target->_admin_url = options.admin_url.value_or("");
    return target;
  }
  MAGNETAR_TRY(magnetar_bin, find_magnetar_binary(options.magnetar_bin));
  // Network impairments act between namespaces: a standalone has none, so one broker and
  // one bookie run as a cluster then.
  if (cluster.standalone() && !network.any_enabled()) {
    auto conf = make_standalone_conf(cluster.brokers.env);
    for (const auto& note : conf.notes) console.line(note);
    auto started = standalone_process::start(
        {.magnetar_bin = magnetar_bin, .directory = run_dir / "standalone", .conf = std::move(conf)});
    if (!started) return fail(started.error().code(), fmt::format("standalone: {}", started.error().detail()));
    target->_standalone.emplace(std::move(started).value());
    for (const auto& warning : target->_standalone->warnings()) console.line(warning);
    target->_service_url = target->_standalone->service_url();
    target->_admin_url = target->_standalone->admin_url();
    console.line(fmt::format("standalone ready: {} {}", target->_service_url, target->_admin_url));
    return target;
  }
  const auto prefix = fmt::format("mg-{}-", run_id.substr(0, 8));
  bool in_namespaces = !options.no_namespaces;
  if (in_namespaces) {
    if (auto reason = cluster_network::unavailable_reason(prefix); !reason.empty()) {
      if (network.any_enabled()) {
        return fail(
            base::errc::invalid_argument,
            fmt::format("the network section's impairments cannot run: no network namespaces here ({})", reason));
      }
      console.line(
          fmt::format("no network namespaces here ({}): the cluster runs on 127.0.0.1 with ports of its own, "
                      "and network impairments cannot run",
                      reason));
      in_namespaces = false;
    }
  }
  auto started = launched_cluster::start({.magnetar_bin = magnetar_bin,
                                          .run_dir = run_dir,
                                          .cluster = cluster,
                                          .name_prefix = prefix,
                                          .in_namespaces = in_namespaces,
                                          .print = [&](std::string_view line) { console.line(line); }});
  if (!started) return fail(started.error().code(), fmt::format("cluster: {}", started.error().detail()));
  target->_cluster = std::move(started).value();
  target->_service_url = target->_cluster->service_url();
  target->_admin_url = target->_cluster->admin_url();
  console.line(fmt::format("cluster ready in {:.1f} s{}: {} {}{} (nodes in {})",
                           std::chrono::duration<double>(target->_cluster->setup_time()).count(),
                           in_namespaces ? ", each node in its own network namespace" : " on 127.0.0.1",
                           target->_service_url, target->_admin_url,
                           target->has_remote() ? fmt::format("; remote cluster {} {}", target->remote_service_url(),
                                                              target->remote_admin_url())
                                                : "",
                           (run_dir / "cluster.json").string()));
  return target;
}

const cluster_network* run_target::network() const {
  return _cluster && _cluster->network() ? &*_cluster->network() : nullptr;
}

fs::path run_target::client_namespace(std::string_view node) const {
  return _cluster ? _cluster->namespace_of(node) : fs::path();
}

result<void> run_target::from_monitor(const std::function<void()>& work) const {
  return in_network_namespace(client_namespace("monitor"), work);
}

namespace {

std::vector<metrics_endpoint> endpoints_of(const launched_cluster& cluster, node_role role) {
  std::vector<metrics_endpoint> out;
  for (const auto* node : cluster.layout().of_role(role)) {
    out.push_back(
        {.node = node->name, .url = {.host = node->address, .port = static_cast<std::uint16_t>(node->http_port)}});
  }
  return out;
}

}  // namespace

std::vector<metrics_endpoint> run_target::broker_metrics() const {
  if (_cluster) return endpoints_of(*_cluster, node_role::broker);
  auto admin = http::url::parse(_admin_url);
  if (!admin) return {};
  return {{.node = _standalone ? "standalone" : "broker", .url = std::move(admin).value()}};
}

std::vector<metrics_endpoint> run_target::bookie_metrics() const {
  return _cluster ? endpoints_of(*_cluster, node_role::bookie) : std::vector<metrics_endpoint>{};
}

std::vector<std::pair<std::string, int>> run_target::newly_exited_nodes() {
  std::vector<std::pair<std::string, int>> out;
  if (!_cluster) return out;
  for (auto& [name, code] : _cluster->exited_nodes()) {
    if (std::find(_reported_exits.begin(), _reported_exits.end(), name) != _reported_exits.end()) continue;
    _reported_exits.push_back(name);
    out.emplace_back(name, code);
  }
  return out;
}

void run_target::stop(console_log& console) {
  if (_standalone) {
    const int code = _standalone->stop();
    if (code != 0) console.error_line(fmt::format("warning: the standalone exited with code {}", code));
    _standalone.reset();
  }
  if (_cluster) {
    const auto started = std::chrono::steady_clock::now();
    auto stopped = _cluster->stop();
    if (!stopped) console.error_line(fmt::format("warning: cluster: {}", stopped.error().detail()));
    console.line(fmt::format("cluster stopped in {:.1f} s",
                             std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count()));
    _cluster.reset();
  }
}

void run_target::leave_running(console_log& console, const fs::path& run_dir) {
  if (!_cluster) {
    stop(console);
    return;
  }
  const auto& network = _cluster->network();
  const auto monitor = network ? network->node("monitor").namespace_name : std::string();
  const auto remote = has_remote() ? fmt::format("; the remote cluster's service URL {}, admin URL {}",
                                                 remote_service_url(), remote_admin_url())
                                   : std::string();
  _cluster->leave_running();
  _cluster.reset();
  console.line(fmt::format("the cluster keeps running (--leave-running): service URL {}, admin URL {}{}", _service_url,
                           _admin_url, remote));
  if (!monitor.empty()) {
    console.line(
        fmt::format("  reach it from its monitor namespace: ip netns exec {} magnetar admin --admin-url {} ...",
                    monitor, _admin_url));
  }
  console.line(fmt::format("  stop it: magnetar-perf cluster down {}", run_dir.string()));
}

}  // namespace magnetar::perf
