#include "perf/workload/gateways.h"

#include "perf/measure/device_state.h"
#include "perf/measure/hgrm.h"
#include "perf/measure/latency_summary.h"
#include "perf/measure/timeline.h"
#include "perf/scenario/scenario_loader.h"
#include "perf/workload/coordination.h"
#include "perf/workload/gateway_fleet.h"
#include "perf/workload/telemetry_sender.h"
#include "perf/workload/workload_files.h"

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <thread>

namespace magnetar::perf {

namespace {

constexpr const char* source = "gateways";

struct gateway_run {
  const workload_options& options;
  const iot_telemetry_settings& settings;
  coordination& markers;
  telemetry_sender& sender;
  std::chrono::steady_clock::time_point deadline;
  std::int64_t start_millis = epoch_millis_now();
  std::int64_t measurement_start_millis = 0;
  std::int64_t measurement_end_millis = 0;
  // A remote cluster's applications (cluster.remote), 0 without one.
  int remote_applications = 0;

  std::vector<std::filesystem::path> for_every_application(auto marker_of) const {
    std::vector<std::filesystem::path> markers_;
    for (int a = 0; a < settings.applications.count; ++a) markers_.push_back(marker_of(settings.subscription(a)));
    return markers_;
  }

  // Every application is ready, the remote cluster's too: a replicated message reaches
  // only the subscriptions that exist when it arrives. Their warmup is not waited for:
  // replication's delay is what the remote applications measure, not a barrier.
  result<void> wait_for_applications() {
    auto ready = for_every_application([&](const std::string& s) { return markers.applications_ready(s); });
    coordination remote_markers(options.coordination_dir, options.run_id, "remote-");
    for (int a = 0; a < remote_applications; ++a) {
      ready.push_back(remote_markers.applications_ready(settings.subscription(a)));
    }
    return markers.wait_for(ready, deadline);
  }

  result<void> warmup() {
    const std::int64_t per_round = settings.warmup_messages_per_round();
    if (per_round == 0) return success();
    for (int round = 1; round <= settings.warmup.rounds; ++round) {
      MAGNETAR_TRY(sender.send(static_cast<std::uint64_t>(per_round), true,
                               pacer(settings.rate, std::chrono::steady_clock::now()), deadline));
      MAGNETAR_TRY(sender.drain(deadline));
      // Receipts alone don't end a round: every application must hold all of it.
      MAGNETAR_TRY(markers.wait_for(
          for_every_application([&](const std::string& s) { return markers.warmup_received(round, s); }), deadline));
      append_event(options.events_file, source, fmt::format("warmup-round-{}-finished", round));
      if (settings.warmup.round_delay_seconds > 0) {
        std::this_thread::sleep_for(std::chrono::seconds(settings.warmup.round_delay_seconds));
      }
    }
    append_event(options.events_file, source, "warmup-finished");
    return success();
  }

  result<void> measure() {
    measurement_start_millis = epoch_millis_now();
    MAGNETAR_TRY(markers.write(markers.measurement_start(), std::to_string(measurement_start_millis)));
    append_event(options.events_file, source, "measurement-started");
    MAGNETAR_TRY(sender.send(static_cast<std::uint64_t>(settings.measured_messages()), false,
                             pacer(settings.rate, std::chrono::steady_clock::now()), deadline));
    MAGNETAR_TRY(sender.drain(deadline));
    measurement_end_millis = epoch_millis_now();
    return success();
  }

  nlohmann::json summary(bool timed_out) const {
    const auto totals = sender.counts();
    const auto seconds = [](std::int64_t from, std::int64_t to) { return std::max<double>(to - from, 1) / 1000.0; };
    const auto end = measurement_end_millis > 0 ? measurement_end_millis : epoch_millis_now();
    return {
        {"gateways", settings.gateways.count},
        {"topics", settings.topics.count},
        {"devices", settings.devices},
        {"rate", settings.rate},
        {"warmupMessages", totals.warmup_receipted},
        {"measuredMessages", totals.measured_receipted},
        {"sendErrors", totals.send_errors},
        {"startEpochMillis", start_millis},
        {"measurementStartEpochMillis", measurement_start_millis},
        {"measurementEndEpochMillis", measurement_end_millis},
        {"messagesPerSecond",
         measurement_start_millis > 0 ? totals.measured_receipted / seconds(measurement_start_millis, end) : 0.0},
        {"wholeRunMessagesPerSecond",
         (totals.warmup_receipted + totals.measured_receipted) / seconds(start_millis, end)},
        {"publishLatencyMillis", latency_summary_millis(sender.publish_latency())},
        {"intendedLatencyMillis", latency_summary_millis(sender.intended_latency())},
        {"timedOut", timed_out},
    };
  }

  // Written whether the run completed or not, so the launcher and the report can say
  // what happened.
  result<void> write_results(bool timed_out) {
    const auto& out = options.output;
    MAGNETAR_TRY(write_device_state(out / "gateways-state.bin", sender.device_state()));
    MAGNETAR_TRY(write_text_file(out / "gateways-latency.hgrm", percentile_distribution(sender.publish_latency())));
    MAGNETAR_TRY(
        write_text_file(out / "gateways-intended-latency.hgrm", percentile_distribution(sender.intended_latency())));
    MAGNETAR_TRY(write_text_file(out / "gateways-summary.json", summary(timed_out).dump(2) + "\n"));
    const auto totals = sender.counts();
    return markers.write(markers.gateways_finished(),
                         std::to_string(totals.warmup_receipted + totals.measured_receipted));
  }
};

}  // namespace

int run_gateways(const workload_options& options) {
  auto settings = load_resolved_config(options.config);
  if (!settings) {
    fmt::print(stderr, "iot-produce: {}\n", settings.error());
    return workload_failed;
  }
  const auto& iot = settings.value().iot;
  std::error_code ec;
  std::filesystem::create_directories(options.output, ec);
  coordination markers(options.coordination_dir, options.run_id);
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(iot.timeout_seconds);

  timeline progress(gateway_timeline_columns(), true);
  auto progress_writer = timeline_writer::start(progress, options.output / "gateways-timeline.csv");
  if (!progress_writer) {
    fmt::print(stderr, "iot-produce: {}\n", progress_writer.error());
    return workload_failed;
  }
  gateway_fleet fleet(iot, options.service_url);
  telemetry_sender sender(iot, fleet, progress);
  gateway_run run{options, iot, markers, sender, deadline};
  if (const auto& remote = settings.value().cluster.remote) run.remote_applications = remote->applications.count;
  append_event(options.events_file, source, "gateways-started");

  auto outcome = [&]() -> result<void> {
    MAGNETAR_TRY(fleet.open());
    MAGNETAR_TRY(run.wait_for_applications());
    MAGNETAR_TRY(run.warmup());
    return run.measure();
  }();
  const bool timed_out = !outcome && outcome.error().code() == base::errc::timed_out;
  if (!outcome) fmt::print(stderr, "iot-produce: {}\n", outcome.error());
  if (auto written = run.write_results(timed_out); !written) {
    fmt::print(stderr, "iot-produce: {}\n", written.error());
    outcome = written;
  }
  append_event(options.events_file, source, "gateways-finished");
  (void)progress_writer.value()->stop();
  fleet.close();
  if (outcome) return workload_completed;
  return timed_out ? workload_timed_out : workload_failed;
}

}  // namespace magnetar::perf
