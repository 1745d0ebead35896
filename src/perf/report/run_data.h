// run_data: everything the report shows of one run directory, loaded in one pass, with
// the list of the contract's files that are missing or unreadable.
//
// A value built by load_run_data() and then only read; not shared between threads while
// it is built.
#pragma once

#include "base/result.h"
#include "perf/report/run_files.h"

#include <nlohmann/json.hpp>

#include <cstdint>
#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace magnetar::perf::report {

// One row of a per-second timeline (gateways-timeline.csv or application-timeline.csv):
// `count` is the messages of that second (sent, or received), the latencies those of its
// receipts.
struct timeline_point {
  std::int64_t epoch_millis = 0;
  double count = 0;
  double p50_millis = 0;
  double p99_millis = 0;
  double max_millis = 0;
};

// One subscription's backlog and rates summed over its topics at one topic-stats sample.
struct subscription_sample {
  std::int64_t epoch_millis = 0;
  double backlog = 0;
  double in_counter = 0;   // msgInCounter summed over the topics
  double out_counter = 0;  // msgOutCounter summed over the topics
};

// One sample of broker-metrics.csv: the broker's entry cache counters, cumulative since
// the broker started and summed over its topics, and the bytes cached at that moment.
struct cache_sample {
  std::int64_t epoch_millis = 0;
  double hits = 0;
  double misses = 0;
  double inserts = 0;
  double evictions = 0;
  double bytes = 0;
};

struct gateways_data {
  std::optional<nlohmann::json> summary;
  std::vector<percentile_point> latency;           // gateways-latency.hgrm
  std::vector<percentile_point> intended_latency;  // gateways-intended-latency.hgrm
  std::vector<timeline_point> timeline;
};

struct application_data {
  std::string subscription;
  std::optional<nlohmann::json> summary;
  std::vector<percentile_point> latency;
  std::vector<timeline_point> timeline;
  bool has_violations_file = false;  // ordering-violations.txt, relative to the run directory
  std::size_t violation_samples = 0;
};

// A key setting of the run (run-info.json's cluster and workload priority, then
// resolved-config.yaml's), for the settings table.
struct setting {
  std::string name;
  std::string value;
};

// One sample of replication-stats.csv, summed over the topics (and remote clusters): the
// replicators' backlog, the worst delay, how many were disconnected, their send rate.
struct replication_sample {
  std::int64_t epoch_millis = 0;
  double backlog = 0;
  double max_delay_seconds = 0;
  int replicators = 0;
  int disconnected = 0;
  double rate_out = 0;  // msg/s
};

// A geo-replicated run's remote side (cluster.remote): the remote cluster's applications,
// its topics' backlog (remote-topic-stats.csv) and the replicators' stats
// (replication-stats.csv).
struct remote_data {
  std::vector<application_data> applications;  // under remote-applications/, by subscription
  std::map<std::string, std::vector<subscription_sample>> backlog;
  std::vector<replication_sample> replication;  // in time order
  bool has_replication_stats = false;           // replication-stats.csv exists and could be read
};

struct run_data {
  std::filesystem::path dir;
  std::string run_id;  // run-id.txt, else run-info.json's runId, else empty
  std::string name;    // run-info.json's name, else the directory's parent's name
  std::optional<nlohmann::json> run_info;
  // cluster.json of a cluster the launcher started (src/perf/cluster/cluster_json.h);
  // absent for a standalone or a given cluster.
  std::optional<nlohmann::json> cluster;
  // network-summary.json of a run with a network section (src/perf/network/network_record.h).
  std::optional<nlohmann::json> network;
  std::vector<setting> settings;
  std::vector<run_event> events;
  std::map<std::string, std::vector<subscription_sample>> backlog;  // by subscription
  // broker-metrics.csv in time order; optional (older runs and clusters without /metrics
  // lack it), so its absence is not in `missing`.
  // Summed over the brokers at each sample (a cluster writes one line per broker).
  std::vector<cache_sample> broker_cache;
  bool has_broker_metrics = false;  // the file exists and could be read
  // Per node, in time order: each broker's publish rate (msg/s, broker-metrics.csv's
  // msgRateIn) and each bookie's mean journal sync time in each interval between two
  // samples (ms, from bookie-metrics.csv's cumulative journalSyncCount/Millis).
  std::map<std::string, std::vector<std::pair<std::int64_t, double>>> broker_publish_rate;
  std::map<std::string, std::vector<std::pair<std::int64_t, double>>> bookie_journal_sync_millis;
  gateways_data gateways;
  std::vector<application_data> applications;  // by subscription, in name order
  // With a remote cluster only (resolved-config.yaml's cluster.remote, or a
  // remote-applications/ folder).
  std::optional<remote_data> remote;
  // The contract's files this run lacks ("events.csv", "applications/x/...") and the ones
  // that exist but could not be read ("path: reason").
  std::vector<std::string> missing;
  std::vector<std::string> unreadable;

  // Epoch milliseconds of the run's start (the run-started event, else the earliest time
  // any file records); the charts' time axis counts seconds from it.
  std::int64_t start_millis() const;
  // The verdict from run-info.json: nullopt when it does not say.
  std::optional<bool> passed() const;
  std::vector<std::string> failures() const;
  // run-info.json's missingMessages for the subscription, when it has it.
  std::optional<double> missing_messages(const std::string& subscription) const;
  // run-info.json's remoteMissingMessages for the remote application of that subscription.
  std::optional<double> remote_missing_messages(const std::string& subscription) const;
  // The relative paths of the run's files that exist, for the report's file list.
  std::vector<std::string> existing_files() const;
};

// Loads the run directory; not_found when it is not a directory. Everything else that is
// wrong with the directory ends in `missing` or `unreadable`, never in a failure.
result<run_data> load_run_data(const std::filesystem::path& dir);

}  // namespace magnetar::perf::report
