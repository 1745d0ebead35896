#include "perf/workload/applications.h"

#include "base/errc.h"
#include "perf/scenario/scenario_loader.h"
#include "perf/workload/application.h"
#include "perf/workload/coordination.h"

#include <fmt/format.h>

#include <algorithm>
#include <charconv>
#include <cmath>
#include <thread>

namespace magnetar::perf {

namespace {

// Restarts `fraction` of each application's pods every interval, taking the pods in
// turn so that over the run each one restarts.
class pod_restarter {
 public:
  explicit pod_restarter(const iot_telemetry_settings& settings)
      : _settings(settings), _next_at(std::chrono::steady_clock::now() + interval()) {}

  void tick(std::vector<std::unique_ptr<application>>& applications) {
    if (_settings.pod_restarts.interval_seconds <= 0 || _settings.pod_restarts.fraction <= 0) return;
    if (std::chrono::steady_clock::now() < _next_at) return;
    _next_at += interval();
    const int pods = _settings.applications.pods_per_application;
    const int count = std::min(pods, static_cast<int>(std::ceil(_settings.pod_restarts.fraction * pods)));
    for (auto& a : applications) {
      for (int i = 0; i < count; ++i) a->restart_pod((_cursor + i) % pods);
    }
    _cursor = (_cursor + count) % pods;
  }

 private:
  std::chrono::seconds interval() const { return std::chrono::seconds(_settings.pod_restarts.interval_seconds); }

  const iot_telemetry_settings& _settings;
  std::chrono::steady_clock::time_point _next_at;
  int _cursor = 0;
};

}  // namespace

result<iot_telemetry_settings> applications_of(const scenario_settings& settings, bool remote) {
  iot_telemetry_settings iot = settings.iot;
  if (!remote) return iot;
  if (!settings.cluster.remote) {
    return fail(base::errc::invalid_argument, "--remote: the scenario has no remote cluster (cluster.remote)");
  }
  const auto& applications = settings.cluster.remote->applications;
  iot.applications.count = applications.count;
  iot.applications.pods_per_application = applications.pods_per_application;
  iot.applications.env = applications.env;
  // They read from the start: a late join is the local applications' experiment.
  iot.applications.join_seconds.clear();
  return iot;
}

int run_applications(const workload_options& options) {
  auto settings = load_resolved_config(options.config);
  if (!settings) {
    fmt::print(stderr, "iot-consume: {}\n", settings.error());
    return workload_failed;
  }
  auto selected = applications_of(settings.value(), options.remote);
  if (!selected) {
    fmt::print(stderr, "iot-consume: {}\n", selected.error());
    return workload_failed;
  }
  const iot_telemetry_settings& iot = selected.value();
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(iot.timeout_seconds);
  coordination markers(options.coordination_dir, options.run_id, options.remote_prefix());
  const bool any_late = std::any_of(iot.applications.join_seconds.begin(), iot.applications.join_seconds.end(),
                                    [](int seconds) { return seconds > 0; });
  if (any_late && options.run_id.empty()) {
    // Late applications join relative to the measurement-start marker; without a run id
    // a marker left by an earlier run would start their clocks.
    fmt::print(stderr, "iot-consume: applications.joinSeconds has late applications, which need --run-id\n");
    return workload_failed;
  }

  const auto io = client_resources::create(static_cast<unsigned>(iot.applications.client.io_threads));
  std::vector<std::unique_ptr<application>> applications;
  for (int a = 0; a < iot.applications.count; ++a) {
    applications.push_back(std::make_unique<application>(iot, a, options, markers, io));
    if (auto started = applications.back()->start(deadline); !started) {
      fmt::print(stderr, "iot-consume: {}\n", started.error());
      return workload_failed;
    }
    if (auto ready = markers.write(markers.applications_ready(applications.back()->subscription()), "ready"); !ready) {
      fmt::print(stderr, "iot-consume: {}\n", ready.error());
      return workload_failed;
    }
  }
  append_event(options.events_file, options.applications_source(), options.remote_prefix() + "applications-ready");

  pod_restarter restarter(iot);
  bool timed_out = false;
  while (true) {
    std::uint64_t expected = 0;
    if (const auto finished = markers.read(markers.gateways_finished());
        finished &&
        std::from_chars(finished->data(), finished->data() + finished->size(), expected).ec == std::errc{}) {
      bool all = true;
      for (auto& a : applications) all = all && a->unique() >= expected;
      if (all) break;
    }
    if (std::chrono::steady_clock::now() >= deadline) {
      timed_out = true;
      fmt::print(stderr, "iot-consume: timed out after {} s (timeoutSeconds) before every message arrived\n",
                 iot.timeout_seconds);
      break;
    }
    restarter.tick(applications);
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }

  int exit_code = timed_out ? workload_timed_out : workload_completed;
  for (auto& a : applications) a->stop();
  for (auto& a : applications) {
    if (a->join_failed()) exit_code = workload_failed;
  }
  for (auto& a : applications) {
    if (auto written = a->write_results(timed_out); !written) {
      fmt::print(stderr, "iot-consume: {}\n", written.error());
      exit_code = workload_failed;
    }
  }
  append_event(options.events_file, options.applications_source(), options.remote_prefix() + "applications-finished");
  return exit_code;
}

}  // namespace magnetar::perf
