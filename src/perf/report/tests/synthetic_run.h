// synthetic_run: a small run directory written file by file as src/perf/README.md's
// contract says, for the report's tests; and a temporary folder that removes itself.
#pragma once

#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

namespace magnetar::perf::report::testing {

// A late application (issue 7): the catch-up fields of its summary, its join and caught-up
// events, and a backlog of 100 messages per topic and second until it joins.
struct late_application {
  int index = 1;
  std::int64_t join_millis = 10'000;          // after the measurement start; < 0: never joined
  std::int64_t caught_up_millis = 8'000;      // after the join; < 0: not caught up
  std::int64_t last_message_millis = 15'000;  // after the join; < 0: no measured message
  double messages_when_caught_up = 100'000;
  double messages_per_second = 0;  // > 0: the summary's messagesPerSecond
  int caught_up_latency_millis = 1000;
};

struct synthetic_run_options {
  std::string run_id = "0123456789abcdef0123456789abcdef";
  std::string name = "iot-telemetry-small";
  bool passed = true;
  std::vector<std::string> failures;
  int applications = 2;
  double rate = 1000;          // gateways' sent per second during the run
  double latency_scale = 1.0;  // multiplies every latency
  std::int64_t start_millis = 1'790'000'000'000;
  std::uint64_t missing_messages = 0;  // of the first application
  int ordering_violations = 0;         // of the first application, with ordering-violations.txt
  std::vector<late_application> late;
  // broker-metrics.csv, sampled 300 ms after each second: per second 1000 hits, 250
  // misses, 300 inserts, 100 evictions and 4096 more bytes cached.
  bool broker_metrics = false;
  // run-info.json's workloadNice; none: a run from before it was recorded.
  std::optional<int> workload_nice = 10;
};

// Writes every file of a finished run of 30 s into dir (created): the measurement runs from
// 7 s to 27 s after the start, topic stats are sampled at each whole second.
void write_synthetic_run(const std::filesystem::path& dir, const synthetic_run_options& options = {});

// A fresh folder under the system's temporary directory, removed with everything in it
// (unless MAGNETAR_REPORT_TEST_KEEP is set: then kept, and its path printed).
class temporary_folder {
 public:
  temporary_folder();
  ~temporary_folder();
  temporary_folder(const temporary_folder&) = delete;
  temporary_folder& operator=(const temporary_folder&) = delete;
  const std::filesystem::path& path() const { return _path; }

 private:
  std::filesystem::path _path;
};

std::string read_file(const std::filesystem::path& file);

}  // namespace magnetar::perf::report::testing
