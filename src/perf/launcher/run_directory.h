// run_directory: the directory one run writes everything into (src/perf/README.md, "The
// run directory"), and the run id that tags the run's coordination markers.
//
//   auto run = create_run_directory("runs", "iot-telemetry-small", std::chrono::system_clock::now());
//   // runs/2026-12-01/iot-telemetry-small/12-01-10-00-00/ with run-id.txt and the sub-folders
//
// Thread-safety: free functions; create_run_directory() is safe against another process
// creating the same path at the same second (mkdir decides who gets the name).
#pragma once

#include "base/result.h"

#include <chrono>
#include <filesystem>
#include <string>
#include <string_view>

namespace magnetar::perf {

struct run_directory {
  std::filesystem::path root;  // absolute
  std::string run_id;          // 32 lowercase hex digits
};

// 32 lowercase hex digits from the system's random source.
std::string generate_run_id();

// Creates `<reports>/<yyyy-MM-dd>/<name>/<MM-dd-HH-mm-ss>/` (UTC at `now`); when that
// exists already, `...-2`, `...-3` and so on. Writes run-id.txt and creates coordination/,
// gateways/, applications/, workloads/ and standalone/. `name` must be a single path
// component. io_error names the path that failed.
result<run_directory> create_run_directory(const std::filesystem::path& reports, std::string_view name,
                                           std::chrono::system_clock::time_point now);

// "2026-12-01T10:00:00Z", the time format of run-info.json.
std::string iso8601_utc(std::chrono::system_clock::time_point t);

}  // namespace magnetar::perf
