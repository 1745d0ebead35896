#include "perf/report/tests/synthetic_run.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <stdexcept>

namespace magnetar::perf::report::testing {
namespace fs = std::filesystem;
namespace {

void write(const fs::path& file, const std::string& content) {
  fs::create_directories(file.parent_path());
  std::ofstream out(file, std::ios::binary | std::ios::trunc);
  out << content;
}

// HdrHistogram's percentile distribution text: header, lines at 5 ticks per half distance,
// a last line at 100 % without the 1/(1-p) column, then the footer.
std::string hgrm(double median_millis, double max_millis, std::uint64_t count) {
  std::string text =
      fmt::format("{:>12} {:>14} {:>10} {:>14}\n\n", "Value", "Percentile", "TotalCount", "1/(1-Percentile)");
  double p = 0;
  for (int half = 0; half < 14; ++half) {
    double step = std::pow(0.5, half + 1) / 5;
    for (int tick = 0; tick < 5; ++tick) {
      double value = median_millis * (0.5 + p) * (1 + 8 * std::pow(p, 8));
      text += fmt::format("{:12.3f} {:2.12f} {:10d} {:14.2f}\n", value, p, static_cast<std::uint64_t>(p * count),
                          1 / (1 - p));
      p += step;
    }
  }
  text += fmt::format("{:12.3f} {:2.12f} {:10d}\n", max_millis, 1.0, count);
  text += fmt::format("#[Mean    = {:12.3f}, StdDeviation   = {:12.3f}]\n", median_millis, median_millis / 2);
  text += fmt::format("#[Max     = {:12.3f}, Total count    = {:12d}]\n", max_millis, count);
  text += "#[Buckets =           20, SubBuckets     =         2048]\n";
  return text;
}

std::string latency_json(double scale) {
  return fmt::format(R"({{"p50": {}, "p95": {}, "p99": {}, "p999": {}, "max": {}}})", 1.25 * scale, 2.5 * scale,
                     4.75 * scale, 9.5 * scale, 21.0 * scale);
}

const late_application* late_one(const synthetic_run_options& o, int a) {
  for (const auto& late : o.late) {
    if (late.index == a) return &late;
  }
  return nullptr;
}

}  // namespace

void write_synthetic_run(const fs::path& dir, const synthetic_run_options& o) {
  const std::int64_t t0 = o.start_millis;
  const std::int64_t gateways_started = t0 + 2000, measurement_start = t0 + 7000, gateways_finished = t0 + 27000;
  const double measured = o.rate * 20, warmup = o.rate * 5;
  fs::create_directories(dir);
  write(dir / "run-id.txt", o.run_id + "\n");

  std::string failures, missing;
  for (const auto& f : o.failures) failures += fmt::format("{}\"{}\"", failures.empty() ? "" : ", ", f);
  for (int a = 0; a < o.applications; ++a) {
    missing += fmt::format("{}\"iot-application-{}\": {}", a == 0 ? "" : ", ", a, a == 0 ? o.missing_messages : 0);
  }
  write(dir / "run-info.json",
        fmt::format(R"({{"runId": "{}", "name": "{}", "scenario": "/work/scenarios/{}.yaml",
 "startedAt": "2026-09-21T10:13:20Z", "finishedAt": "2026-09-21T10:13:50Z",
 "serviceUrl": "pulsar://127.0.0.1:6650", "adminUrl": "http://127.0.0.1:8080", "standalone": true,{}
 "host": {{"hostname": "perf-host", "cpus": 2, "memoryBytes": 8589934592, "kernel": "6.1.0-18-amd64",
           "cpuModel": "Example CPU @ 3.0GHz"}},
 "magnetarVersion": "0.6.0-test", "passed": {}, "failures": [{}], "missingMessages": {{{}}}}})",
                    o.run_id, o.name, o.name,
                    o.workload_nice ? fmt::format(" \"workloadNice\": {},", *o.workload_nice) : std::string(),
                    o.passed ? "true" : "false", failures, missing));

  std::string join_settings;
  if (!o.late.empty()) {
    std::string join;
    for (int a = 0; a < o.applications; ++a) {
      const auto* late = late_one(o, a);
      join += fmt::format("{}{}", a == 0 ? "" : ", ", late ? std::max<std::int64_t>(1, late->join_millis / 1000) : 0);
    }
    join_settings = fmt::format(", joinSeconds: [{}], caughtUpLatencyMillis: 1000", join);
  }
  write(dir / "resolved-config.yaml", fmt::format(R"(cluster:
  brokers: {{replicas: 1}}
  bookies: {{replicas: 1}}
workloads:
  iotTelemetry:
    warmup: {{seconds: 5, messages: 0, rounds: 1, roundDelaySeconds: 0}}
    measurement: {{seconds: 20, messages: 0}}
    rate: {}
    payload: {{size: 64}}
    timeoutSeconds: 120
    devices: {{count: 1000}}
    gateways:
      count: 2
      producer: {{maxOutstanding: 20000, batchingEnabled: true}}
    topics: {{count: 3, prefix: "persistent://public/default/iot-telemetry-"}}
    applications: {{count: {}, podsPerApplication: 2, subscriptionPrefix: iot-application-{}}}
    behaviors: {{podRestarts: {{intervalSeconds: 0, fraction: 0.0}}}}
metrics: {{intervalSeconds: 1}}
output: {{name: {}}}
)",
                                                  o.rate, o.applications, join_settings, o.name));
  write(dir / "console.log.txt", "run started\n");

  std::string events = fmt::format("{},launcher,run-started\n{},launcher,standalone-ready\n", t0, t0 + 1000);
  events += fmt::format("{},gateways,gateways-started\n", gateways_started);
  events += fmt::format("{},gateways,warmup-round-1-finished\n", measurement_start - 10);
  events += fmt::format("{},gateways,warmup-finished\n", measurement_start);
  events += fmt::format("{},gateways,measurement-started\n", measurement_start);
  events += fmt::format("{},gateways,gateways-finished\n", gateways_finished);
  events += fmt::format("{},applications,applications-finished\n", gateways_finished + 1000);
  events += fmt::format("{},launcher,run-finished\n", t0 + 30000);
  for (const auto& late : o.late) {
    if (late.join_millis < 0) continue;
    auto join = measurement_start + late.join_millis;
    events += fmt::format("{},applications,application-joined-iot-application-{}\n", join, late.index);
    if (late.caught_up_millis >= 0) {
      events += fmt::format("{},applications,application-caught-up-iot-application-{}\n", join + late.caught_up_millis,
                            late.index);
    }
  }
  write(dir / "events.csv", events);

  // Topic stats: 3 topics, each subscription's backlog rising during the run and drained at the end.
  std::string stats = "epochMillis,topic,subscription,msgBacklog,msgInCounter,msgOutCounter\n";
  for (int s = 0; s <= 30; ++s) {
    std::int64_t at = t0 + s * 1000;
    double produced = s < 2 ? 0 : std::min(25.0, s - 2.0) * o.rate / 3;
    for (int t = 0; t < 3; ++t) {
      for (int a = 0; a < o.applications; ++a) {
        double backlog = s < 2 || s > 28 ? 0 : (10 + 5 * a) * std::sin(s / 4.0) * std::sin(s / 4.0) + 3 * t;
        if (const auto* late = late_one(o, a)) {
          bool waiting = late->join_millis < 0 || at <= measurement_start + late->join_millis;
          backlog = waiting ? 100.0 * s : 0;
        }
        stats +=
            fmt::format("{},persistent://public/default/iot-telemetry-{},iot-application-{},{:.0f},{:.0f},{:.0f}\n", at,
                        t, a, backlog, produced, std::max(0.0, produced - backlog));
      }
    }
  }
  write(dir / "topic-stats.csv", stats);

  if (o.broker_metrics) {
    std::string metrics = "epochMillis,cacheHits,cacheMisses,cacheInserts,cacheEvictions,cacheBytes\n";
    for (int s = 0; s <= 30; ++s) {
      metrics += fmt::format("{},{},{},{},{},{}\n", t0 + s * 1000 + 300, 1000 * s, 250 * s, 300 * s, 100 * s, 4096 * s);
    }
    write(dir / "broker-metrics.csv", metrics);
  }

  write(dir / "gateways/gateways-summary.json",
        fmt::format(R"({{"gateways": 2, "topics": 3, "devices": 1000, "rate": {}, "warmupMessages": {:.0f},
 "measuredMessages": {:.0f}, "sendErrors": 0, "startEpochMillis": {}, "measurementStartEpochMillis": {},
 "measurementEndEpochMillis": {}, "messagesPerSecond": {}, "wholeRunMessagesPerSecond": {},
 "publishLatencyMillis": {}, "intendedLatencyMillis": {}, "timedOut": false}})",
                    o.rate, warmup, measured, gateways_started, measurement_start, gateways_finished, o.rate,
                    o.rate * 0.9, latency_json(o.latency_scale), latency_json(o.latency_scale * 1.2)));
  write(dir / "gateways/gateways-latency.hgrm", hgrm(1.25 * o.latency_scale, 21 * o.latency_scale, 20000));
  write(dir / "gateways/gateways-intended-latency.hgrm", hgrm(1.5 * o.latency_scale, 25 * o.latency_scale, 20000));
  std::string timeline = "epochMillis,sent,sendErrors,inFlight,p50Millis,p99Millis,maxMillis\n";
  for (int s = 2; s < 27; ++s) {
    double wobble = 1 + 0.2 * std::sin(s);
    timeline += fmt::format("{},{:.0f},0,{},{:.3f},{:.3f},{:.3f}\n", t0 + s * 1000 + 1000, o.rate * wobble, 20,
                            1.2 * o.latency_scale * wobble, 4.5 * o.latency_scale * wobble, 9 * o.latency_scale);
  }
  write(dir / "gateways/gateways-timeline.csv", timeline);
  write(dir / "gateways/gateways-state.bin", std::string("MGDSTAT1") + std::string(8, '\0'));

  for (int a = 0; a < o.applications; ++a) {
    auto app = dir / "applications" / fmt::format("iot-application-{}", a);
    int violations = a == 0 ? o.ordering_violations : 0;
    const auto* late = late_one(o, a);
    std::int64_t join = late && late->join_millis >= 0 ? measurement_start + late->join_millis : 0;
    std::int64_t last = gateways_finished + 400 + 100 * a;
    if (late) last = join == 0 || late->last_message_millis < 0 ? 0 : join + late->last_message_millis;
    double messages_per_second = o.rate * (0.99 - 0.01 * a);
    if (late && late->messages_per_second > 0) messages_per_second = late->messages_per_second;
    std::string catch_up = R"("joinSeconds": 0, "joinEpochMillis": 0, "caughtUpLatencyMillis": 1000,
 "caughtUpEpochMillis": 0, "messagesWhenCaughtUp": 0)";
    if (late) {
      catch_up = fmt::format(R"("joinSeconds": {}, "joinEpochMillis": {}, "caughtUpLatencyMillis": {},
 "caughtUpEpochMillis": {}, "messagesWhenCaughtUp": {})",
                             std::max<std::int64_t>(1, late->join_millis / 1000), join, late->caught_up_latency_millis,
                             join != 0 && late->caught_up_millis >= 0 ? join + late->caught_up_millis : 0,
                             late->caught_up_millis >= 0 ? late->messages_when_caught_up : 0);
    }
    write(app / "application-summary.json",
          fmt::format(R"({{"subscription": "iot-application-{}", "pods": 2, "topics": 3,
 "received": {:.0f}, "unique": {:.0f}, "duplicates": {}, "orderingViolations": {}, "invalid": 0,
 "measuredReceived": {:.0f}, "firstMeasuredReceiptEpochMillis": {}, "lastMeasuredReceiptEpochMillis": {},
 "messagesPerSecond": {}, "podRestarts": 0, "endToEndLatencyMillis": {}, {}, "timedOut": false}})",
                      a, warmup + measured + 7, warmup + measured, 7 * a, violations, measured, measurement_start + 5,
                      last, messages_per_second, latency_json(o.latency_scale * (2 + a)), catch_up));
    write(app / "application-latency.hgrm",
          hgrm(1.25 * o.latency_scale * (2 + a), 21 * o.latency_scale * (2 + a), static_cast<std::uint64_t>(measured)));
    std::string app_timeline = "epochMillis,received,duplicates,violations,p50Millis,p99Millis,maxMillis\n";
    for (int s = 2; s < 28; ++s) {
      double wobble = 1 + 0.2 * std::sin(s + a + 0.5);
      app_timeline += fmt::format("{},{:.0f},0,0,{:.3f},{:.3f},{:.3f}\n", t0 + s * 1000 + 1000,
                                  s == 27 ? o.rate / 3 : o.rate * wobble, 2.4 * o.latency_scale * (1 + a) * wobble,
                                  9 * o.latency_scale * (1 + a) * wobble, 18 * o.latency_scale * (1 + a));
    }
    write(app / "application-timeline.csv", app_timeline);
    write(app / "application-state.bin", std::string("MGDSTAT1") + std::string(8, '\0'));
    if (violations > 0) {
      std::string samples;
      for (int v = 0; v < violations; ++v) {
        samples +=
            fmt::format("device={} expected={} got={} pod=1 topic=persistent://public/default/iot-telemetry-{}\n",
                        v * 3, 10 + v, 12 + v, v % 3);
      }
      write(app / "ordering-violations.txt", samples);
    }
  }
  write(dir / "workloads/iot-produce.log", "gateways done\n");
  write(dir / "workloads/iot-consume.log", "applications done\n");
}

temporary_folder::temporary_folder() {
  std::string pattern = (fs::temp_directory_path() / "magnetar-report-test-XXXXXX").string();
  if (mkdtemp(pattern.data()) == nullptr) throw std::runtime_error("mkdtemp failed");
  _path = pattern;
}

temporary_folder::~temporary_folder() {
  // Kept on request, to look at a report the tests wrote (e.g. in a browser).
  if (std::getenv("MAGNETAR_REPORT_TEST_KEEP") != nullptr) {
    fmt::print(stderr, "kept {}\n", _path.string());
    return;
  }
  std::error_code ec;
  fs::remove_all(_path, ec);
}

std::string read_file(const fs::path& file) {
  std::ifstream in(file, std::ios::binary);
  std::ostringstream content;
  content << in.rdbuf();
  return content.str();
}

}  // namespace magnetar::perf::report::testing
