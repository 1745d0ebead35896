// progress_monitor: prints a line every --progress-interval seconds while a run goes, as
// pulsar-perf does: produced and received rates, backlog, publish and end-to-end latency.
//
// It reads what the workloads write anyway, the new rows of gateways/gateways-timeline.csv
// and applications/*/application-timeline.csv since the last line (column names from
// each file's header), and the sampler's latest backlog.
//
// Thread-safety: start() and stop() from the owner's thread; the line goes to `print`
// from the monitor's own thread. stop() wakes it at once (condition variable).
#pragma once

#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <filesystem>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

namespace magnetar::perf {

// A geo-replicated run's remote side: the remote applications' rate and latency (from
// remote-applications/*/application-timeline.csv), the remote topics' backlog and the
// replicators' backlog (from the samplers).
struct remote_progress_figures {
  std::optional<double> received_per_second;
  std::optional<std::int64_t> backlog;
  std::optional<std::int64_t> replication_backlog;
  std::optional<double> end_to_end_p50_millis;  // the worst remote application's
  std::optional<double> end_to_end_p99_millis;
};

// The figures of one progress line; a missing one prints as "-".
struct progress_figures {
  double elapsed_seconds = 0;
  std::optional<double> produced_per_second;
  std::optional<double> received_per_second;  // summed over the applications
  std::optional<std::int64_t> backlog;
  std::optional<double> publish_p50_millis;
  std::optional<double> publish_p99_millis;
  std::optional<double> end_to_end_p50_millis;  // the worst application's
  std::optional<double> end_to_end_p99_millis;
  std::optional<remote_progress_figures> remote;  // with cluster.remote only
};

// "[   10 s] produced: 1000.0 msg/s --- received: 2000.0 msg/s --- backlog: 12 --- publish
// p50: 1.234 ms p99: 3.456 ms --- end-to-end p50: 2.000 ms p99: 5.100 ms", and with a
// remote cluster " --- remote received: 2000.0 msg/s --- remote backlog: 3 --- replication
// backlog: 40 --- remote end-to-end p50: 30.000 ms p99: 52.000 ms"
std::string format_progress_line(const progress_figures& figures);

// The rows a CSV file gained since the last call: complete lines only (a row being written
// waits for the next call), the header read once for the column names.
// Thread-safety: one owner.
class csv_tail {
 public:
  explicit csv_tail(std::filesystem::path file) : _file(std::move(file)) {}

  // Each new row as column name -> numeric value (fields that are not numbers are left out).
  std::vector<std::map<std::string, double>> new_rows();

 private:
  std::filesystem::path _file;
  std::uint64_t _offset = 0;
  std::vector<std::string> _columns;
};

// The figures from the new timeline rows of the gateways and of each application.
// Rates are the mean over the new rows (one row per second); latencies are the latest row's.
progress_figures figures_from_timelines(
    const std::vector<std::map<std::string, double>>& gateway_rows,
    const std::vector<std::vector<std::map<std::string, double>>>& application_rows);

struct progress_monitor_options {
  std::filesystem::path run_dir;
  std::chrono::seconds interval{10};
  std::chrono::steady_clock::time_point started = std::chrono::steady_clock::now();
  std::function<std::optional<std::int64_t>()> backlog;  // the sampler's latest
  std::function<void(std::string_view)> print;
  // A geo-replicated run: the line shows the remote side too, these giving the remote
  // topics' backlog and the replicators' (either may be empty).
  bool remote = false;
  std::function<std::optional<std::int64_t>()> remote_backlog;
  std::function<std::optional<std::int64_t>()> replication_backlog;
};

class progress_monitor {
 public:
  explicit progress_monitor(progress_monitor_options options);
  progress_monitor(const progress_monitor&) = delete;
  progress_monitor& operator=(const progress_monitor&) = delete;
  ~progress_monitor();

  void start();
  void stop();
  // Reads the timelines and prints one line now (the thread calls it every interval).
  void print_line();

 private:
  void run();

  progress_monitor_options _options;
  csv_tail _gateways;
  std::map<std::string, std::unique_ptr<csv_tail>> _applications;         // by subscription folder
  std::map<std::string, std::unique_ptr<csv_tail>> _remote_applications;  // the same
  std::thread _thread;
  std::mutex _mutex;
  std::condition_variable _wake;
  bool _stopping = false;  // under _mutex
};

}  // namespace magnetar::perf
