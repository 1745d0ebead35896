#include "perf/cluster/cluster_json.h"

#include "base/errc.h"
#include "perf/cluster/cluster_network.h"
#include "perf/cluster/launched_cluster.h"
#include "perf/cluster/node_configs.h"
#include "perf/cluster/ready_file.h"

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <csignal>
#include <fstream>
#include <thread>

namespace magnetar::perf {

namespace fs = std::filesystem;

result<void> write_cluster_json(const fs::path& file, const launched_cluster& cluster) {
  const auto& layout = cluster.layout();
  const auto run_dir = file.parent_path();
  nlohmann::json nodes = nlohmann::json::array();
  for (const auto& node : layout.nodes) {
    nlohmann::json entry{{"name", node.name},
                         {"role", role_name(node.role)},
                         {"cluster", cluster_name_of(node)},
                         {"namespace", cluster.network() ? cluster.network()->node(node.name).namespace_name : ""},
                         {"address", node.address}};
    nlohmann::json ports = nlohmann::json::object();
    if (node.port != 0) ports["service"] = node.port;
    if (node.http_port != 0) ports["http"] = node.http_port;
    if (node.quorum_port != 0) ports["quorum"] = node.quorum_port;
    if (node.election_port != 0) ports["election"] = node.election_port;
    entry["ports"] = ports;
    for (const auto& started : cluster.processes()) {
      if (started.node != &node) continue;
      entry["pid"] = started.process.pid();
      entry["log"] = fs::relative(started.log_file, run_dir).string();
      entry["output"] = fs::relative(started.process.log_file(), run_dir).string();
    }
    nodes.push_back(std::move(entry));
  }
  nlohmann::json root{{"clusterName", launched_cluster_name},
                      {"inNamespaces", layout.in_namespaces},
                      {"router", cluster.network() ? cluster.network()->router_namespace() : ""},
                      {"serviceUrl", cluster.service_url()},
                      {"adminUrl", cluster.admin_url()},
                      {"zookeeper", layout.zookeeper_connect()},
                      {"setupMillis", cluster.setup_time().count()},
                      {"nodes", nodes}};
  if (layout.has_remote()) {
    root["remote"] = {{"clusterName", remote_cluster_name},
                      {"serviceUrl", cluster.remote_service_url()},
                      {"adminUrl", cluster.remote_admin_url()},
                      {"zookeeper", layout.zookeeper_connect(true)},
                      {"configurationStore", layout.zookeeper_connect()}};
  }
  std::ofstream out(file);
  out << root.dump(2) << '\n';
  out.flush();
  if (!out) return fail(base::errc::io_error, fmt::format("write {}", file.string()));
  return success();
}

result<recorded_cluster> read_cluster_json(const fs::path& file) {
  const auto root = nlohmann::json::parse(read_text_file(file), nullptr, /*allow_exceptions=*/false);
  if (!root.is_object() || !root.contains("nodes") || !root["nodes"].is_array()) {
    return fail(base::errc::corrupt_data, fmt::format("{}: not a cluster.json (no nodes)", file.string()));
  }
  recorded_cluster out;
  for (const auto& node : root["nodes"]) {
    if (!node.is_object()) continue;
    const auto pid = node.value("pid", 0);
    if (pid > 0) out.processes.push_back({.name = node.value("name", ""), .role = node.value("role", ""), .pid = pid});
    const auto ns = node.value("namespace", "");
    if (!ns.empty()) out.namespaces.push_back(ns);
  }
  const auto router = root.value("router", "");
  if (!router.empty()) out.namespaces.push_back(router);
  return out;
}

namespace {

// The process still is the one the run started: its command line names the run
// directory (every node's configuration lives there).
bool started_by_run(int pid, const fs::path& run_dir) {
  auto cmdline = read_text_file(fmt::format("/proc/{}/cmdline", pid));
  std::replace(cmdline.begin(), cmdline.end(), '\0', ' ');
  return cmdline.find(run_dir.string()) != std::string::npos;
}

// Running, and not a zombie: a node left running was reparented when its launcher ended,
// and whoever reaps it now may not have yet.
bool alive(int pid) {
  const auto stat = read_text_file(fmt::format("/proc/{}/stat", pid));
  const auto after_name = stat.rfind(") ");
  return after_name != std::string::npos && after_name + 2 < stat.size() && stat[after_name + 2] != 'Z';
}

}  // namespace

result<void> cluster_down(const fs::path& run_dir, std::chrono::milliseconds grace,
                          const std::function<void(std::string_view)>& print) {
  const auto absolute = fs::absolute(run_dir).lexically_normal();
  MAGNETAR_TRY(recorded, read_cluster_json(absolute / "cluster.json"));
  // Brokers first (they hand their bundles over, which needs the bookies and ZooKeeper),
  // then the bookies, then ZooKeeper, each role gone before the next is asked.
  for (const auto* role : {"broker", "bookie", "zookeeper"}) {
    std::vector<int> stopping;
    for (const auto& process : recorded.processes) {
      if (process.role != role || !alive(process.pid)) continue;
      if (!started_by_run(process.pid, fs::canonical(absolute))) {
        print(
            fmt::format("{} (pid {}): left alone, the pid now belongs to another program", process.name, process.pid));
        continue;
      }
      ::kill(process.pid, SIGTERM);
      stopping.push_back(process.pid);
      print(fmt::format("{} (pid {}): SIGTERM", process.name, process.pid));
    }
    // They are not our children: no pidfd to wait on, so look until they are gone.
    const auto deadline = std::chrono::steady_clock::now() + grace;
    for (int pid : stopping) {
      while (alive(pid) && std::chrono::steady_clock::now() < deadline) {
        std::this_thread::sleep_for(std::chrono::milliseconds(50));
      }
      if (alive(pid)) {
        ::kill(pid, SIGKILL);
        print(fmt::format("pid {}: SIGKILL after {} ms", pid, grace.count()));
      }
    }
  }
  MAGNETAR_TRY(delete_network_namespaces(recorded.namespaces));
  if (!recorded.namespaces.empty()) print(fmt::format("deleted {} network namespaces", recorded.namespaces.size()));
  return success();
}

}  // namespace magnetar::perf
