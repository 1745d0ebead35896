// settings: the typed, validated view of a resolved scenario that the launcher and the
// workloads run from. Names follow upstream's scenario format (cluster, workloads.
// iotTelemetry, metrics, output); see docs/scenario-format.md.
//
// Plain values, no owner, no threads: built once by parse_settings() or
// load_resolved_config() (scenario_loader.h) and copied freely. The defaults below are
// what a key left out of the scenario means.
#pragma once

#include "perf/scenario/network_settings.h"

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace magnetar::perf {

// `cluster.brokers` / `cluster.bookies`.
struct node_group_settings {
  int replicas = 1;
  // Broker (or bookie) configuration keys and process environment, as upstream's `env`.
  std::map<std::string, std::string> env;
};

// `cluster.brokers.bootstrap`: the service URL the workloads get names the first broker
// only, or every broker (so that a cut-off broker is not the clients' only way in).
enum class bootstrap_brokers { single, all };

// The namespace the launcher replicates between the clusters (its tenant allowed in both,
// its replication clusters set to both): a geo-replicated scenario's topics live there.
inline constexpr std::string_view replicated_namespace = "public/default";
inline constexpr std::string_view replicated_namespace_path = "public/default/";

// `cluster.remote.applications`: the remote region's applications, which read the
// replicated messages with the workload's subscriptions. Each key the scenario leaves out
// copies the local applications' (parse_settings fills them in).
struct remote_applications_settings {
  int count = 1;
  int pods_per_application = 1;
  std::map<std::string, std::string> env;
};

// `cluster.remote`: a second cluster (geo-replication) in namespaces of its own, with its
// own ZooKeeper, sharing the first cluster's ZooKeeper as its configuration store. Its
// brokers, bookies and ZooKeeper copy the first cluster's unless the scenario sets them.
struct remote_cluster_settings {
  node_group_settings brokers;
  node_group_settings bookies;
  int zookeeper_replicas = 1;
  remote_applications_settings applications;
  // Retention of the replicated namespace (public/default), set through the admin API once
  // replication is on; 0 leaves the brokers' default.
  int retention_minutes = 0;
};

struct cluster_settings {
  node_group_settings brokers;
  node_group_settings bookies;
  int zookeeper_replicas = 1;  // `cluster.zookeeper.replicas`: 1, or 3 for an ensemble
  bootstrap_brokers bootstrap = bootstrap_brokers::single;
  std::optional<remote_cluster_settings> remote;

  // One broker, one bookie and one ZooKeeper server: the launcher runs a standalone (the
  // fastest set-up); anything else, a remote cluster included, is a cluster of processes.
  bool standalone() const {
    return brokers.replicas == 1 && bookies.replicas == 1 && zookeeper_replicas == 1 && !remote;
  }
};

struct warmup_settings {
  int seconds = 0;            // at `rate`; exclusive with messages
  std::int64_t messages = 0;  // with rate 0
  int rounds = 1;
  int round_delay_seconds = 0;
};

struct measurement_settings {
  int seconds = 0;
  std::int64_t messages = 0;  // when set, the measured message count (rate 0 or paced)
};

struct producer_settings {
  int io_threads = 1;
  int listener_threads = 1;
  int max_outstanding = 20000;  // messages in flight across the gateways
  bool batching_enabled = true;
  bool precreate = false;  // open every producer before the first message
};

struct client_settings {
  int io_threads = 1;
  int listener_threads = 1;
};

struct gateways_settings {
  int count = 1;
  producer_settings producer;
  std::map<std::string, std::string> env;
};

struct topics_settings {
  int count = 1;
  std::string prefix = "persistent://public/default/iot-telemetry-";
};

struct applications_settings {
  int count = 1;
  int pods_per_application = 1;
  std::string subscription_prefix = "iot-application-";
  client_settings client;
  std::map<std::string, std::string> env;
  // Seconds after the measurement's start at which each application opens its pods, one
  // per application; empty: every application joins at the start.
  std::vector<int> join_seconds;
  // A late application has caught up when a measured message reaches it within this long
  // of its publishing.
  int caught_up_latency_millis = 1000;

  // When application a joins (0 without join_seconds).
  int join_seconds_of(int a) const { return join_seconds.empty() ? 0 : join_seconds.at(static_cast<std::size_t>(a)); }
};

struct pod_restarts_settings {
  int interval_seconds = 0;  // 0: never
  double fraction = 0.0;     // of each application's pods, per interval
};

struct iot_telemetry_settings {
  warmup_settings warmup;
  measurement_settings measurement;
  double rate = 1000;  // messages per second across the gateways; 0: as fast as possible
  int payload_size = 64;
  int timeout_seconds = 240;
  std::int64_t devices = 1000;
  gateways_settings gateways;
  topics_settings topics;
  applications_settings applications;
  pod_restarts_settings pod_restarts;

  // Messages per warmup round and measured in total, from the settings above.
  std::int64_t warmup_messages_per_round() const;
  std::int64_t measured_messages() const;
  // The topic of index t (prefix + t) and the subscription of application a.
  std::string topic(int t) const { return topics.prefix + std::to_string(t); }
  std::string subscription(int a) const { return applications.subscription_prefix + std::to_string(a); }
  // Seconds of traffic the workload needs at the rate: every warmup round with its delay,
  // then the measurement (0 for parts without a rate, whose length nobody can tell).
  std::int64_t warmup_round_seconds() const;
  std::int64_t warmup_total_seconds() const;
  std::int64_t measurement_seconds() const;
};

struct scenario_settings {
  cluster_settings cluster;
  iot_telemetry_settings iot;
  network_settings network;
  int metrics_interval_seconds = 1;
  std::optional<std::string> output_name;
};

}  // namespace magnetar::perf
