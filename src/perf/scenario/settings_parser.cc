// parse_settings(): the resolved tree into scenario_settings. Each section is read by a
// settings_reader, which checks keys, types and ranges; the rules between settings are in
// settings_validation.cc.
#include "perf/scenario/network_settings_parser.h"
#include "perf/scenario/scenario_loader.h"
#include "perf/scenario/settings_reader.h"
#include "perf/scenario/settings_validation.h"

#include <fmt/format.h>

namespace magnetar::perf {
namespace {

// A message's body and header are at most the broker's default maxMessageSize (5 MiB).
constexpr std::int64_t max_payload_size = 5 * 1024 * 1024;

// Up to this many brokers or bookies: each is a process and a namespace on one machine.
constexpr int max_replicas = 16;

void read_node_group(settings_reader group, node_group_settings& out) {
  group.read("replicas", out.replicas, 1, max_replicas);
  group.read("env", out.env);
}

void read_brokers(settings_reader& cluster, cluster_settings& out) {
  auto brokers = cluster.section("brokers", {"replicas", "env", "bootstrap"});
  read_node_group(brokers, out.brokers);
  std::string bootstrap = "single";
  brokers.read("bootstrap", bootstrap);
  if (bootstrap == "all") {
    out.bootstrap = bootstrap_brokers::all;
  } else if (bootstrap != "single") {
    brokers.problems().add(fmt::format("{}: '{}' is neither single nor all", brokers.path_of("bootstrap"), bootstrap));
  }
}

void read_warmup(settings_reader& iot, warmup_settings& out) {
  auto warmup = iot.section("warmup", {"seconds", "messages", "rounds", "roundDelaySeconds"});
  warmup.read("seconds", out.seconds, 0);
  warmup.read("messages", out.messages, 0);
  warmup.read("rounds", out.rounds, 1);
  warmup.read("roundDelaySeconds", out.round_delay_seconds, 0);
}

void read_gateways(settings_reader& iot, gateways_settings& out) {
  auto gateways = iot.section("gateways", {"count", "producer", "env"});
  gateways.read("count", out.count, 1);
  auto producer =
      gateways.section("producer", {"ioThreads", "listenerThreads", "maxOutstanding", "batchingEnabled", "precreate"});
  producer.read("ioThreads", out.producer.io_threads, 1);
  producer.read("listenerThreads", out.producer.listener_threads, 1);
  producer.read("maxOutstanding", out.producer.max_outstanding, 1);
  producer.read("batchingEnabled", out.producer.batching_enabled);
  producer.read("precreate", out.producer.precreate);
  gateways.read("env", out.env);
}

void read_applications(settings_reader& iot, applications_settings& out) {
  auto applications = iot.section("applications", {"count", "podsPerApplication", "subscriptionPrefix", "client", "env",
                                                   "joinSeconds", "caughtUpLatencyMillis"});
  applications.read("count", out.count, 1);
  applications.read("podsPerApplication", out.pods_per_application, 1);
  applications.read("subscriptionPrefix", out.subscription_prefix);
  auto client = applications.section("client", {"ioThreads", "listenerThreads"});
  client.read("ioThreads", out.client.io_threads, 1);
  client.read("listenerThreads", out.client.listener_threads, 1);
  applications.read("env", out.env);
  applications.read("joinSeconds", out.join_seconds, 0);
  applications.read("caughtUpLatencyMillis", out.caught_up_latency_millis, 1);
}

void read_iot(settings_reader workloads, iot_telemetry_settings& out) {
  auto iot = workloads.section("iotTelemetry", {"warmup", "measurement", "rate", "payload", "timeoutSeconds", "devices",
                                                "gateways", "topics", "applications", "behaviors"});
  read_warmup(iot, out.warmup);
  auto measurement = iot.section("measurement", {"seconds", "messages"});
  measurement.read("seconds", out.measurement.seconds, 0);
  measurement.read("messages", out.measurement.messages, 0);
  iot.read("rate", out.rate, 0.0);
  iot.section("payload", {"size"}).read("size", out.payload_size, 32, max_payload_size);
  iot.read("timeoutSeconds", out.timeout_seconds, 1);
  iot.section("devices", {"count"}).read("count", out.devices, 1);
  read_gateways(iot, out.gateways);
  auto topics = iot.section("topics", {"count", "prefix"});
  topics.read("count", out.topics.count, 1);
  topics.read("prefix", out.topics.prefix);
  read_applications(iot, out.applications);
  auto restarts = iot.section("behaviors", {"podRestarts"}).section("podRestarts", {"intervalSeconds", "fraction"});
  restarts.read("intervalSeconds", out.pod_restarts.interval_seconds, 0);
  restarts.read("fraction", out.pod_restarts.fraction, 0.0, 1.0);
}

// `cluster.remote`: each part the scenario leaves out copies the first cluster's (or the
// local applications'), so `remote: {}` is a twin region.
void read_remote(settings_reader& cluster, const cluster_settings& local, const applications_settings& applications,
                 std::optional<remote_cluster_settings>& out) {
  if (!cluster.has("remote")) return;
  auto remote = cluster.section("remote", {"brokers", "bookies", "zookeeper", "applications", "retentionMinutes"});
  remote_cluster_settings r{.brokers = local.brokers,
                            .bookies = local.bookies,
                            .zookeeper_replicas = local.zookeeper_replicas,
                            .applications = {.count = applications.count,
                                             .pods_per_application = applications.pods_per_application,
                                             .env = applications.env}};
  read_node_group(remote.section("brokers", {"replicas", "env"}), r.brokers);
  read_node_group(remote.section("bookies", {"replicas", "env"}), r.bookies);
  auto zookeeper = remote.section("zookeeper", {"replicas"});
  zookeeper.read("replicas", r.zookeeper_replicas, 1, 3);
  if (r.zookeeper_replicas == 2) {
    cluster.problems().add(
        fmt::format("{}: 2 servers cannot lose one and keep a quorum; use 1 or 3", zookeeper.path_of("replicas")));
  }
  auto apps = remote.section("applications", {"count", "podsPerApplication", "env"});
  apps.read("count", r.applications.count, 1);
  apps.read("podsPerApplication", r.applications.pods_per_application, 1);
  apps.read("env", r.applications.env);
  remote.read("retentionMinutes", r.retention_minutes, 0);
  out = std::move(r);
}

// Upstream's profiling section configures a Java profiler; magnetar-perf has none, and
// running a scenario that asks for one without it would measure something else.
void check_profiling(const YAML::Node& profiling, problem_list& problems) {
  if (!profiling.IsDefined() || profiling.IsNull()) return;
  if (profiling.IsMap() && profiling.size() == 0) return;
  problems.add(
      "profiling is not supported by magnetar-perf; remove the profiling section (or the --extends file that adds "
      "it), or set it to ~");
}

}  // namespace

result<scenario_settings> parse_settings(const YAML::Node& resolved) {
  problem_list problems;
  if (!resolved.IsMap()) {
    return fail(base::errc::invalid_argument, "the scenario must be a YAML mapping with cluster and workloads");
  }
  scenario_settings settings;
  settings_reader root(resolved, "", {"cluster", "workloads", "network", "metrics", "output", "profiling"}, problems);
  auto cluster = root.section("cluster", {"brokers", "bookies", "zookeeper", "remote"});
  read_brokers(cluster, settings.cluster);
  read_node_group(cluster.section("bookies", {"replicas", "env"}), settings.cluster.bookies);
  {
    auto zookeeper = cluster.section("zookeeper", {"replicas"});
    zookeeper.read("replicas", settings.cluster.zookeeper_replicas, 1, 3);
    if (settings.cluster.zookeeper_replicas == 2) {
      problems.add(
          fmt::format("{}: 2 servers cannot lose one and keep a quorum; use 1 or 3", zookeeper.path_of("replicas")));
    }
  }
  if (!root.has("workloads")) {
    problems.add("workloads.iotTelemetry is missing: the scenario needs the IoT telemetry workload's settings");
  } else {
    auto workloads = root.section("workloads", {"iotTelemetry"});
    if (!workloads.has("iotTelemetry")) {
      problems.add("workloads.iotTelemetry is missing: the scenario needs the IoT telemetry workload's settings");
    }
    read_iot(workloads, settings.iot);
  }
  // After the workload: the remote applications default to the local ones.
  read_remote(cluster, settings.cluster, settings.iot.applications, settings.cluster.remote);
  read_network(root, settings.network);
  root.section("metrics", {"intervalSeconds"}).read("intervalSeconds", settings.metrics_interval_seconds, 1);
  {
    auto output = root.section("output", {"name"});
    if (output.has("name")) {
      std::string name;
      output.read("name", name);
      if (!name.empty()) settings.output_name = name;
    }
  }
  check_profiling(resolved["profiling"], problems);
  if (problems.empty()) validate_settings(settings, problems);
  if (!problems.empty()) return fail(base::errc::invalid_argument, problems.joined());
  return settings;
}

}  // namespace magnetar::perf
