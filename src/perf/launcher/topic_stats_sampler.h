// topic_stats_sampler: a thread that reads every topic's stats from the admin API once
// per interval and appends them to topic-stats.csv
// (`epochMillis,topic,subscription,msgBacklog,msgInCounter,msgOutCounter`), the data of
// the report's backlog and rate charts and of the progress lines' backlog. With a
// metrics file it also reads each broker's `/metrics` each time and appends a line per
// broker to broker-metrics.csv, and with a bookie metrics file each bookie's to
// bookie-metrics.csv (node_metrics_sample.h); a node without the families (404, or
// none of them, or not reachable: a killed node) writes no line and counts no error.
// With a replication file (geo-replication) the same stats' `replication` section goes to
// replication-stats.csv (replication_stats.h). A remote cluster's topics are sampled by a
// sampler of their own (remote-topic-stats.csv).
//
// One row per topic and subscription per sample; a topic without subscriptions gets one
// row with an empty subscription (its msgBacklog 0) and the topic's counters. A 404 (the
// topic is created when its first producer or consumer arrives) is skipped silently;
// other failures are counted and the first one is reported through `on_error`.
//
// Thread-safety: start() and stop() from the owner's thread; latest_backlog(),
// samples() and errors() from any thread. stop() wakes the thread at once (it waits on
// a condition variable) and returns after the sample in flight, bounded by the request
// timeout. The destructor stops.
#pragma once

#include "base/result.h"
#include "http/url.h"
#include "perf/launcher/node_metrics_sample.h"
#include "perf/launcher/replication_stats.h"

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <functional>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

namespace magnetar::perf {

struct topic_stats_row {
  std::string topic;
  std::string subscription;
  std::int64_t msg_backlog = 0;
  std::int64_t msg_in_counter = 0;
  std::int64_t msg_out_counter = 0;
};

// The rows of one topic's stats JSON (the body of GET .../stats); invalid_argument when
// the body is not a JSON object.
result<std::vector<topic_stats_row>> parse_topic_stats(std::string_view topic, std::string_view json_body);

// "<epochMillis>,<topic>,<subscription>,<backlog>,<in>,<out>" without a newline.
std::string topic_stats_csv_line(std::int64_t epoch_millis, const topic_stats_row& row);

// A node whose /metrics is sampled: its name in the CSV's node column, and its HTTP URL.
struct metrics_endpoint {
  std::string node;
  http::url url;
};

struct topic_stats_sampler_options {
  http::url admin;
  std::vector<std::string> topics;         // full names, "persistent://public/default/x"
  std::filesystem::path csv_file;          // created with its header
  std::filesystem::path metrics_csv_file;  // broker-metrics.csv; empty: /metrics is not read
  std::chrono::milliseconds interval{1000};
  std::chrono::milliseconds request_timeout{2000};
  std::function<void(std::string_view)> on_error;  // the first failure, once
  // The network namespace the requests come from (a launched cluster's monitor); empty:
  // the launcher's.
  std::filesystem::path network_namespace;
  // Whose /metrics go to broker-metrics.csv; empty: the admin URL's, as node "broker".
  std::vector<metrics_endpoint> brokers;
  std::vector<metrics_endpoint> bookies;
  std::filesystem::path bookie_metrics_csv_file;  // bookie-metrics.csv; empty: not sampled
  std::filesystem::path replication_csv_file;     // replication-stats.csv; empty: not written
};

class topic_stats_sampler {
 public:
  static constexpr std::string_view csv_header = "epochMillis,topic,subscription,msgBacklog,msgInCounter,msgOutCounter";

  explicit topic_stats_sampler(topic_stats_sampler_options options);
  topic_stats_sampler(const topic_stats_sampler&) = delete;
  topic_stats_sampler& operator=(const topic_stats_sampler&) = delete;
  ~topic_stats_sampler();

  // Opens the CSV (io_error when it cannot) and starts sampling, the first sample at once.
  result<void> start();
  void stop();

  // The sum of msgBacklog over every subscription of the latest sample that reached at
  // least one topic; nullopt before.
  std::optional<std::int64_t> latest_backlog() const;
  // The sum of replicationBacklog over every topic and remote cluster of the latest sample
  // that found a replicator; nullopt before (or without a replication file).
  std::optional<std::int64_t> latest_replication_backlog() const;
  // Samples taken and rows written so far; lines written to the metrics file.
  std::int64_t samples() const { return _samples.load(); }
  std::int64_t metrics_lines() const { return _metrics_lines.load(); }
  std::int64_t rows() const { return _rows.load(); }
  // Failed requests other than 404.
  std::int64_t errors() const { return _errors.load(); }

 private:
  void run();
  void sample_once();
  void sample_metrics(std::int64_t epoch_millis);
  // Appends a line to a metrics CSV, opening it (with its header) at the first; false
  // when it cannot be opened (reported once, and the file is then given up).
  bool append_metrics_line(std::FILE*& file, std::filesystem::path& path, std::string_view header,
                           const std::string& line);

  topic_stats_sampler_options _options;
  std::vector<std::string> _paths;  // the stats path of each topic
  std::FILE* _csv = nullptr;
  std::FILE* _metrics_csv = nullptr;      // opened at the first line
  std::FILE* _bookie_csv = nullptr;       // the same
  std::FILE* _replication_csv = nullptr;  // the same
  std::thread _thread;
  std::mutex _mutex;
  std::condition_variable _wake;
  bool _stopping = false;  // under _mutex
  std::atomic<std::int64_t> _latest_backlog{-1};
  std::atomic<std::int64_t> _latest_replication_backlog{-1};
  std::atomic<std::int64_t> _samples{0};
  std::atomic<std::int64_t> _rows{0};
  std::atomic<std::int64_t> _metrics_lines{0};
  std::atomic<std::int64_t> _errors{0};
};

}  // namespace magnetar::perf
