// launcher_options: what `magnetar-perf run` and `magnetar-perf compare` are told on
// their command lines. Plain values.
#pragma once

#include <filesystem>
#include <optional>
#include <string>
#include <vector>

namespace magnetar::perf {

struct launcher_options {
  std::filesystem::path scenario;                     // --scenario, required
  std::vector<std::filesystem::path> extends;         // --extends, in order
  std::vector<std::string> sets;                      // --set a.b=v, in order
  std::optional<std::string> name;                    // --name; else output.name, else the scenario's stem
  std::filesystem::path reports_dir = "runs";         // --reports-dir
  std::optional<std::string> service_url;             // --service-url: drive this cluster, start no standalone
  std::optional<std::string> admin_url;               // --admin-url: with --service-url
  int progress_interval_seconds = 10;                 // --progress-interval
  std::optional<std::filesystem::path> magnetar_bin;  // --magnetar-bin
  // --workload-nice: how many nice steps below the launcher (and the standalone it
  // starts) the gateways and applications run. They share this machine's CPUs with the
  // broker, where upstream's framework gives them machines of their own: the broker gets
  // the larger weight, the load generators what it leaves. 0 runs them alongside.
  int workload_nice = 10;
  bool drop_one_message = false;  // hidden test hook, passed to iot-consume
  // --leave-running: a cluster the launcher started stays up after the run
  // (`magnetar-perf cluster down RUN_DIR` stops it).
  bool leave_running = false;
  // --no-namespaces: a cluster's processes run on 127.0.0.1 even where network namespaces
  // could be made (what happens without the privileges for them).
  bool no_namespaces = false;
};

struct compare_options {
  std::filesystem::path run_a;
  std::filesystem::path run_b;
  std::optional<std::filesystem::path> output;  // default: <run_b>/compare-<run_a's folder name>
};

}  // namespace magnetar::perf
