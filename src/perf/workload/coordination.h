// coordination: the files through which the launcher's processes (the gateways and the
// applications) agree on a run's phases, and the run's event log.
//
// Markers live in the coordination directory and carry the run id in their names, so
// markers left by an earlier run never release a new one. A marker is written to a
// temporary file and renamed, so a reader sees all of it or nothing. See
// src/perf/README.md, "Coordination directory".
//
// Thread-safe: no state besides the paths.
#pragma once

#include "base/result.h"

#include <atomic>
#include <chrono>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

namespace magnetar::perf {

class coordination {
 public:
  // `applications`: what the per-application markers put before the subscription: "" for
  // the applications, "remote-" for a remote cluster's (geo-replication), which read the
  // same subscriptions and must not pass for the local ones.
  coordination(std::filesystem::path directory, std::string run_id, std::string applications = "");

  // The marker names of src/perf/README.md.
  std::filesystem::path applications_ready(const std::string& subscription) const;
  std::filesystem::path warmup_received(int round, const std::string& subscription) const;
  std::filesystem::path measurement_start() const;
  std::filesystem::path gateways_finished() const;

  // Writes `content` (one line) to `marker` atomically.
  result<void> write(const std::filesystem::path& marker, const std::string& content) const;
  // The marker's content, without the line end; nullopt while it does not exist.
  std::optional<std::string> read(const std::filesystem::path& marker) const;

  // Waits until every marker exists, until `deadline` or until `stop` turns true.
  // timed_out or cancelled otherwise. Markers are files written by other processes, so
  // this looks every 20 ms: cheap for the few markers of a run.
  result<void> wait_for(const std::vector<std::filesystem::path>& markers,
                        std::chrono::steady_clock::time_point deadline, const std::atomic<bool>* stop = nullptr) const;

 private:
  std::filesystem::path _directory;
  std::string _run_id;
  std::string _applications;
};

// Appends `epochMillis,source,event` to the run's events.csv through events_log
// (perf/measure/events_log.h), which the launcher appends to as well. Does nothing for
// an empty path; a file that cannot be written loses the event, not the run.
void append_event(const std::filesystem::path& events_file, const std::string& source, const std::string& event);

std::int64_t epoch_millis_now();

}  // namespace magnetar::perf
