// workload_options: what the launcher tells a workload process (iot-produce or
// iot-consume) on its command line. Plain values.
#pragma once

#include <filesystem>
#include <string>

namespace magnetar::perf {

struct workload_options {
  std::filesystem::path config;            // resolved-config.yaml
  std::filesystem::path output;            // gateways/ or applications/
  std::string run_id;                      // tags the coordination markers
  std::filesystem::path coordination_dir;  // default: <output>/coordination
  std::string service_url = "pulsar://localhost:6650";
  std::filesystem::path events_file;  // events.csv; empty: none
  // Test hook for the launcher's state comparison: each application forgets the last
  // message it received of one device, so its state ends one short of the gateways'.
  bool drop_one_message = false;
  // Nice steps below the launcher's priority; 0 keeps it. The command line's entry point
  // (run_workload_command) takes them before any thread starts, so that every thread
  // has them; run_gateways and run_applications don't.
  int nice = 0;
  // iot-consume --remote: the applications of the remote cluster (cluster.remote.
  // applications), reading the replicated messages: their markers and events are
  // prefixed "remote-", their source in events.csv is remote-applications.
  bool remote = false;

  // "remote-" for a remote cluster's applications, else "".
  std::string remote_prefix() const { return remote ? "remote-" : ""; }
  // The applications' source in events.csv.
  std::string applications_source() const { return remote_prefix() + "applications"; }
};

// A workload process's exit codes.
inline constexpr int workload_completed = 0;
inline constexpr int workload_failed = 1;
inline constexpr int workload_timed_out = 2;

}  // namespace magnetar::perf
