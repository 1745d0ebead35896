// synthetic_run: a small run directory written file by file as src/perf/README.md's
// contract says, for the report's tests; and a temporary folder that removes itself.
#pragma once

#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

namespace magnetar::perf::report::testing {

struct synthetic_run_options {
  std::string run_id = "0123456789abcdef0123456789abcdef";
  std::string name = "iot-telemetry-small";
  bool passed = true;
  std::vector<std::string> failures;
  int applications = 2;
  double rate = 1000;           // gateways' sent per second during the run
  double latency_scale = 1.0;   // multiplies every latency
  std::int64_t start_millis = 1'790'000'000'000;
  std::uint64_t missing_messages = 0;  // of the first application
  int ordering_violations = 0;         // of the first application, with ordering-violations.txt
};

// Writes every file of a finished run of 30 s into dir (created).
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
