#include "perf/cluster/launched_cluster.h"

#include "base/errc.h"
#include "perf/cluster/cluster_json.h"
#include "perf/cluster/network_namespace.h"
#include "perf/cluster/node_configs.h"
#include "perf/cluster/ready_file.h"

#include <fmt/format.h>

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <unistd.h>
#include <csignal>
#include <fstream>
#include <thread>

namespace magnetar::perf {

namespace fs = std::filesystem;
using clock_type = std::chrono::steady_clock;

namespace {

constexpr const char* java = "/usr/bin/java";
// Debian's zookeeper package; its jar's manifest names the jars it needs, and its conf
// folder holds the log4j settings.
constexpr const char* zookeeper_jar = "/usr/share/java/zookeeper.jar";
constexpr const char* zookeeper_conf_dir = "/etc/zookeeper/conf";
constexpr auto stop_grace = std::chrono::seconds(20);

int loopback_free_port() {
  const int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (fd < 0) return -1;
  sockaddr_in address{};
  address.sin_family = AF_INET;
  address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  socklen_t length = sizeof address;
  int port = -1;
  if (::bind(fd, reinterpret_cast<sockaddr*>(&address), sizeof address) == 0 &&
      ::getsockname(fd, reinterpret_cast<sockaddr*>(&address), &length) == 0) {
    port = ntohs(address.sin_port);
  }
  ::close(fd);
  return port;
}

result<void> write_file(const fs::path& file, const std::string& text) {
  std::ofstream out(file);
  out << text;
  out.flush();
  if (!out) return fail(base::errc::io_error, fmt::format("write {}", file.string()));
  return success();
}

std::string with_log_tail(const node_process& started, std::string_view what) {
  std::string text(what);
  for (const auto& file : {started.process.log_file(), started.log_file}) {
    const auto tail = tail_lines(file, 15);
    if (!tail.empty()) text += fmt::format("\n--- last lines of {} ---\n{}", file.string(), tail);
  }
  return text;
}

}  // namespace

std::string zookeeper_mode(const std::string& address, int port) {
  const int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (fd < 0) return {};
  timeval timeout{.tv_sec = 2, .tv_usec = 0};
  ::setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, sizeof timeout);
  ::setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &timeout, sizeof timeout);
  sockaddr_in target{};
  target.sin_family = AF_INET;
  target.sin_port = htons(static_cast<std::uint16_t>(port));
  std::string answer;
  if (::inet_pton(AF_INET, address.c_str(), &target.sin_addr) == 1 &&
      ::connect(fd, reinterpret_cast<sockaddr*>(&target), sizeof target) == 0 && ::write(fd, "srvr", 4) == 4) {
    char buffer[4096];
    for (ssize_t n; (n = ::read(fd, buffer, sizeof buffer)) > 0;) answer.append(buffer, static_cast<std::size_t>(n));
  }
  ::close(fd);
  constexpr std::string_view key = "Mode: ";
  const auto at = answer.find(key);
  if (at == std::string::npos) return {};
  const auto end = answer.find('\n', at);
  return answer.substr(at + key.size(), end == std::string::npos ? std::string::npos : end - at - key.size());
}

std::string launched_cluster::unavailable_reason() {
  if (::access(java, X_OK) != 0) return fmt::format("no {} (install default-jre-headless)", java);
  if (::access(zookeeper_jar, R_OK) != 0) return fmt::format("no {} (install zookeeper)", zookeeper_jar);
  return {};
}

result<std::unique_ptr<launched_cluster>> launched_cluster::start(const launched_cluster_options& options) {
  const auto started = clock_type::now();
  if (auto missing = unavailable_reason(); !missing.empty()) {
    return fail(base::errc::unsupported, fmt::format("cannot start ZooKeeper: {}", missing));
  }
  std::optional<std::function<int()>> ports;
  if (!options.in_namespaces) ports = loopback_free_port;
  std::unique_ptr<launched_cluster> cluster(new launched_cluster(plan_cluster(options.cluster, ports)));
  if (options.in_namespaces) {
    std::vector<std::string> names;
    for (const auto& node : cluster->_layout.nodes) names.push_back(node.name);
    MAGNETAR_TRY(network, cluster_network::create(options.name_prefix, names));
    cluster->_network.emplace(std::move(network));
  }
  MAGNETAR_TRY(cluster->start_nodes(options));
  cluster->_setup_time = std::chrono::duration_cast<std::chrono::milliseconds>(clock_type::now() - started);
  MAGNETAR_TRY(write_cluster_json(options.run_dir / "cluster.json", *cluster));
  return cluster;
}

result<void> launched_cluster::start_nodes(const launched_cluster_options& options) {
  const auto deadline = clock_type::now() + options.ready_timeout;
  auto phase_start = clock_type::now();
  const auto phase_done = [&](std::string_view what) {
    const auto now = clock_type::now();
    options.print(
        fmt::format("cluster: {} ready in {:.1f} s", what, std::chrono::duration<double>(now - phase_start).count()));
    phase_start = now;
  };
  // A remote cluster starts beside the first, role by role, so that its start adds little
  // to the wait; its metadata is initialized after the first's, which writes the
  // configuration store it shares.
  const bool remote = _layout.has_remote();
  const auto both = [&](node_role role) {
    const auto local = _layout.of_role(role).size();
    return remote ? fmt::format("{} + {} remote", local, _layout.of_role(role, true).size()) : std::to_string(local);
  };
  MAGNETAR_TRY(start_zookeeper(options, deadline));
  phase_done(fmt::format("ZooKeeper ({}{})", _layout.zookeeper_connect(),
                         remote ? fmt::format("; remote {}", _layout.zookeeper_connect(true)) : ""));
  MAGNETAR_TRY(start_bookies(options, deadline));
  MAGNETAR_TRY(initialize_metadata(options, deadline, false));
  if (remote) {
    MAGNETAR_TRY(initialize_metadata(options, deadline, true));
  }
  phase_done(
      fmt::format("{} bookies and the {} metadata", both(node_role::bookie), remote ? "clusters'" : "cluster's"));
  MAGNETAR_TRY(start_brokers(options, deadline));
  phase_done(fmt::format("{} brokers", both(node_role::broker)));
  return success();
}

fs::path launched_cluster::namespace_of(std::string_view node) const {
  if (!_network) return {};
  return _network->node(node).namespace_file();
}

result<child_process> launched_cluster::spawn(const cluster_node& node, child_spec spec) {
  spec.network_namespace = namespace_of(node.name);
  return child_process::start(spec);
}

std::vector<const cluster_node*> launched_cluster::every(node_role role) const {
  auto nodes = _layout.of_role(role);
  for (const auto* node : _layout.of_role(role, true)) nodes.push_back(node);
  return nodes;
}

result<void> launched_cluster::start_zookeeper(const launched_cluster_options& options,
                                               clock_type::time_point deadline) {
  for (const auto* node : every(node_role::zookeeper)) {
    const auto dir = options.run_dir / "cluster" / node->name;
    std::error_code ec;
    fs::create_directories(dir / "data", ec);
    if (ec) return fail(base::errc::io_error, fmt::format("create {}: {}", dir.string(), ec.message()));
    MAGNETAR_TRY(write_file(dir / "zoo.cfg", zookeeper_config(_layout, *node, dir / "data")));
    MAGNETAR_TRY(write_file(dir / "data" / "myid", fmt::format("{}\n", node->index + 1)));
    MAGNETAR_TRY(
        child, spawn(*node, {.program = java,
                             .args = {"-Xmx256m", "-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1",
                                      "-Dzookeeper.log.dir=" + dir.string(), "-cp",
                                      fmt::format("{}:{}", zookeeper_conf_dir, zookeeper_jar),
                                      "org.apache.zookeeper.server.quorum.QuorumPeerMain", (dir / "zoo.cfg").string()},
                             .log_file = dir / "zookeeper.out.log"}));
    _processes.push_back({.node = node, .process = std::move(child), .log_file = dir / "zookeeper.log"});
  }
  // Every server answers `srvr` with its mode once it serves (an ensemble: once it has a
  // leader). Asked from the monitor's namespace, as a client would.
  for (auto& started : _processes) {
    for (;;) {
      std::string mode;
      MAGNETAR_TRY(in_network_namespace(namespace_of("monitor"),
                                        [&] { mode = zookeeper_mode(started.node->address, started.node->port); }));
      if (!mode.empty()) break;
      if (auto code = started.process.poll()) {
        return fail(base::errc::io_error, with_log_tail(started, fmt::format("{} exited with code {} before it served",
                                                                             started.node->name, *code)));
      }
      if (clock_type::now() >= deadline) {
        return fail(base::errc::timed_out,
                    with_log_tail(started, fmt::format("{} did not serve in time", started.node->name)));
      }
      // ZooKeeper writes no ready file: ask again shortly (a JVM takes about a second).
      std::this_thread::sleep_for(std::chrono::milliseconds(100));
    }
  }
  return success();
}

result<void> launched_cluster::start_bookies(const launched_cluster_options& options, clock_type::time_point deadline) {
  const auto env = conf_from_env(options.cluster.bookies.env, "cluster.bookies.env");
  for (const auto& note : env.notes) options.print(note);
  const auto remote_env = options.cluster.remote
                              ? conf_from_env(options.cluster.remote->bookies.env, "cluster.remote.bookies.env")
                              : env_conf{};
  if (options.cluster.remote) {
    for (const auto& note : remote_env.notes) options.print(note);
  }
  const auto first = _processes.size();
  for (const auto* node : every(node_role::bookie)) {
    const auto& env_of_node = node->remote ? remote_env : env;
    const auto dir = options.run_dir / "cluster" / node->name;
    std::error_code ec;
    fs::create_directories(dir / "data", ec);
    if (ec) return fail(base::errc::io_error, fmt::format("create {}: {}", dir.string(), ec.message()));
    MAGNETAR_TRY(write_file(dir / "bookkeeper.conf", bookie_config(_layout, *node, dir / "data", env_of_node)));
    MAGNETAR_TRY(child, spawn(*node, {.program = options.magnetar_bin,
                                      .args = {"bookie", "--config", (dir / "bookkeeper.conf").string(), "--ready-file",
                                               (dir / "ready.json").string()},
                                      .log_file = dir / "bookie.log"}));
    _processes.push_back({.node = node, .process = std::move(child), .log_file = dir / "bookie.log"});
  }
  return wait_until_ready(first, options.run_dir, deadline);
}

result<void> launched_cluster::initialize_metadata(const launched_cluster_options& options,
                                                   clock_type::time_point deadline, bool remote) {
  const auto& broker = *_layout.of_role(node_role::broker, remote).front();
  const auto log = options.run_dir / "cluster" /
                   (remote ? "remote-initialize-cluster-metadata.log" : "initialize-cluster-metadata.log");
  std::vector<std::string> args = {"initialize-cluster-metadata",
                                   "--cluster",
                                   std::string(remote ? remote_cluster_name : launched_cluster_name),
                                   "--metadata-store",
                                   "zk:" + _layout.zookeeper_connect(remote),
                                   "--web-service-url",
                                   _layout.admin_url(remote),
                                   "--broker-service-url",
                                   fmt::format("pulsar://{}:{}", broker.address, broker.port)};
  // The remote cluster registers itself in the first cluster's configuration store, which
  // both share (tenants, namespaces, the clusters' URLs for replication).
  if (remote) {
    args.emplace_back("--configuration-metadata-store");
    args.push_back("zk:" + _layout.zookeeper_connect());
  }
  MAGNETAR_TRY(child, spawn(_layout.node("monitor"),
                            {.program = options.magnetar_bin, .args = std::move(args), .log_file = log}));
  const auto code = child.wait_until(deadline);
  if (!code) child.terminate();
  if (code != 0) {
    return fail(
        base::errc::io_error,
        fmt::format("magnetar initialize-cluster-metadata {}; its output:\n{}",
                    code ? fmt::format("exited with code {}", *code) : "did not finish in time", tail_lines(log, 15)));
  }
  return success();
}

result<void> launched_cluster::start_brokers(const launched_cluster_options& options, clock_type::time_point deadline) {
  const auto env = conf_from_env(options.cluster.brokers.env, "cluster.brokers.env");
  for (const auto& note : env.notes) options.print(note);
  const auto remote_env = options.cluster.remote
                              ? conf_from_env(options.cluster.remote->brokers.env, "cluster.remote.brokers.env")
                              : env_conf{};
  if (options.cluster.remote) {
    for (const auto& note : remote_env.notes) options.print(note);
  }
  const auto first = _processes.size();
  for (const auto* node : every(node_role::broker)) {
    const auto& env_of_node = node->remote ? remote_env : env;
    const auto dir = options.run_dir / "cluster" / node->name;
    std::error_code ec;
    fs::create_directories(dir, ec);
    if (ec) return fail(base::errc::io_error, fmt::format("create {}: {}", dir.string(), ec.message()));
    MAGNETAR_TRY(write_file(dir / "broker.conf", broker_config(_layout, *node, env_of_node)));
    MAGNETAR_TRY(child,
                 spawn(*node, {.program = options.magnetar_bin,
                               .args = {"broker", "--config", (dir / "broker.conf").string(), "--log-file",
                                        (dir / "broker.log").string(), "--ready-file", (dir / "ready.json").string()},
                               .log_file = dir / "broker.out.log"}));
    _processes.push_back({.node = node, .process = std::move(child), .log_file = dir / "broker.log"});
  }
  return wait_until_ready(first, options.run_dir, deadline);
}

result<void> launched_cluster::wait_until_ready(std::size_t first, const fs::path& run_dir,
                                                clock_type::time_point deadline) {
  for (auto i = first; i < _processes.size(); ++i) {
    auto& started = _processes[i];
    auto ready =
        wait_for_ready_file(started.process, run_dir / "cluster" / started.node->name / "ready.json", deadline);
    if (!ready) {
      return fail(ready.error().code(),
                  with_log_tail(started, fmt::format("{}: {}", started.node->name, ready.error().detail())));
    }
  }
  return success();
}

std::vector<std::pair<std::string, int>> launched_cluster::exited_nodes() {
  std::vector<std::pair<std::string, int>> out;
  for (auto& started : _processes) {
    if (auto code = started.process.poll()) out.emplace_back(started.node->name, *code);
  }
  return out;
}

result<void> launched_cluster::stop_role(node_role role) {
  result<void> outcome = success();
  for (auto& started : _processes) {
    // running() is false for a detached child, whose pid is -1: kill(-1) would signal
    // every process we may signal.
    if (started.node->role == role && started.process.running()) ::kill(started.process.pid(), SIGTERM);
  }
  for (auto& started : _processes) {
    if (started.node->role != role) continue;
    const bool was_running = started.process.running();
    const int code = started.process.terminate(stop_grace);
    // A node that had already ended (a crash, a fault's kill) was reported then.
    // A JVM (ZooKeeper) ends a SIGTERM with 128 + 15; magnetar's nodes with 0.
    const bool clean = code == 0 || code == child_process::signal_exit_base + SIGTERM;
    if (was_running && !clean && outcome) {
      outcome = fail(base::errc::io_error, fmt::format("{} exited with code {} when stopped (see {})",
                                                       started.node->name, code, started.log_file.string()));
    }
  }
  return outcome;
}

result<void> launched_cluster::stop() {
  result<void> outcome = success();
  for (auto role : {node_role::broker, node_role::bookie, node_role::zookeeper}) {
    auto stopped = stop_role(role);
    if (!stopped && outcome) outcome = stopped;
  }
  if (_network) {
    auto destroyed = _network->destroy();
    if (!destroyed && outcome) outcome = destroyed;
  }
  return outcome;
}

void launched_cluster::leave_running() {
  for (auto& started : _processes) started.process.detach();
  _processes.clear();
  if (_network) _network->detach();
}

launched_cluster::~launched_cluster() { (void)stop(); }

}  // namespace magnetar::perf
