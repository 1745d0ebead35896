// The run report's sections, in the order a reader asks: did it pass, what was run, was
// every message delivered in order, how fast (and how fast late applications caught up), how long it took, what queued
// up, on what.
#include "perf/report/catch_up.h"
#include "perf/report/figures.h"
#include "perf/report/network_section.h"
#include "perf/report/remote_section.h"
#include "perf/report/report_content.h"

#include <fmt/format.h>

#include <algorithm>
#include <map>

namespace magnetar::perf::report {
namespace fs = std::filesystem;
namespace {

std::optional<double> number(const std::optional<nlohmann::json>& object, const char* key) {
  return object ? json_number(*object, key) : std::nullopt;
}

std::optional<std::string> text(const std::optional<nlohmann::json>& object, const char* key) {
  return object ? json_text(*object, key) : std::nullopt;
}

inline_text or_dash(std::optional<std::string> value) { return value ? inline_text(*value) : inline_text("–"); }

section missing_section(const run_data& run) {
  section s{"Missing files", {}};
  s.blocks.push_back(
      paragraph{"The run directory lacks these files of the contract (a run that stopped early writes fewer); the "
                "report shows what the others hold."});
  bullet_list missing;
  for (const auto& m : run.missing) missing.items.push_back(code(m));
  for (const auto& u : run.unreadable) missing.items.push_back(inline_text("unreadable: ") + code(u));
  s.blocks.push_back(std::move(missing));
  return s;
}

// "2 brokers, 3 bookies and 1 ZooKeeper server, each in a network namespace of its own;
// up in 1.4 s (cluster.json)".
inline_text cluster_summary(const nlohmann::json& cluster) {
  // Per cluster: the first ("local", and nodes of older files that name none) and a
  // remote one (geo-replication).
  std::map<std::string, int> count, remote;
  for (const auto& node : cluster.value("nodes", nlohmann::json::array())) {
    if (!node.is_object()) continue;
    ++(node.value("cluster", "local") == "remote" ? remote : count)[node.value("role", "")];
  }
  const auto plural = [](int n, std::string_view one, std::string_view many) {
    return fmt::format("{} {}", n, n == 1 ? one : many);
  };
  const auto parts = [&](std::map<std::string, int>& c) {
    return fmt::format("{}, {} and {}", plural(c["broker"], "broker", "brokers"),
                       plural(c["bookie"], "bookie", "bookies"),
                       plural(c["zookeeper"], "ZooKeeper server", "ZooKeeper servers"));
  };
  inline_text out(
      fmt::format("{}{}, {}; up in {:.1f} s (", parts(count),
                  remote.empty() ? "" : fmt::format("; a remote cluster of {} (geo-replication)", parts(remote)),
                  cluster.value("inNamespaces", false) ? "each in a network namespace of its own" : "all on 127.0.0.1",
                  cluster.value("setupMillis", 0) / 1000.0));
  out.spans.push_back(link("cluster.json", "cluster.json").spans.front());
  out.spans.push_back({span::style::text, ")", {}});
  return out;
}

// Each node of a launched cluster: where it ran and its log.
table cluster_nodes_table(const nlohmann::json& cluster) {
  table t{{"Node", "Role", "Address", "Namespace", "Log"}, {false, false, false, false, false}, {}};
  for (const auto& node : cluster.value("nodes", nlohmann::json::array())) {
    if (!node.is_object()) continue;
    const auto log = node.value("log", "");
    const auto role = node.value("role", "");
    t.rows.push_back({code(node.value("name", "")),
                      node.value("cluster", "local") == "remote" ? fmt::format("{} (remote)", role) : role,
                      node.value("address", ""), code(node.value("namespace", "")),
                      log.empty() ? inline_text("") : link(log, log)});
  }
  return t;
}

section settings_section(const run_data& run) {
  section s{"Settings", {}};
  table t{{"Setting", "Value"}, {false, false}, {}};
  if (auto scenario = text(run.run_info, "scenario")) t.rows.push_back({"Scenario", code(*scenario)});
  for (const auto& setting : run.settings) t.rows.push_back({setting.name, setting.value});
  std::error_code ec;
  if (fs::is_regular_file(run.dir / "resolved-config.yaml", ec)) {
    t.rows.push_back({"Configuration", link("resolved-config.yaml", "resolved-config.yaml")});
  }
  if (run.cluster) t.rows.push_back({"Cluster", cluster_summary(*run.cluster)});
  if (t.rows.empty()) {
    s.blocks.push_back(paragraph{"No settings: run-info.json and resolved-config.yaml are missing."});
  } else {
    s.blocks.push_back(std::move(t));
  }
  if (run.cluster) s.blocks.push_back(cluster_nodes_table(*run.cluster));
  return s;
}

section correctness_section(const run_data& run) {
  section s{"Correctness", {}};
  if (run.applications.empty()) {
    s.blocks.push_back(paragraph{"No application ran."});
    return s;
  }
  table t{{"Application", "Unique", "Duplicates", "Ordering violations", "Invalid", "Missing", "Pod restarts",
           "Violation samples"},
          {false, true, true, true, true, true, true, false},
          {}};
  bool clean = true;
  for (const auto& app : run.applications) {
    auto get = [&](const char* key) { return number(app.summary, key); };
    auto missing = run.missing_messages(app.subscription);
    for (auto v : {get("orderingViolations"), get("invalid"), missing}) clean = clean && v.value_or(0) == 0;
    inline_text samples = "–";
    // Every application writes the file; one without samples has nothing to show.
    if (app.has_violations_file && app.violation_samples > 0) {
      std::string file = fmt::format("applications/{}/ordering-violations.txt", app.subscription);
      samples = link(fmt::format("{} sample(s)", app.violation_samples), file);
    }
    // Of the duplicates, those of a device's latest message are told apart (applications
    // from this version on): the same entry again, or the message stored twice.
    inline_text duplicates = format_count(get("duplicates"));
    if (auto redelivered = get("redeliveredDuplicates"), twice = get("persistedTwiceDuplicates");
        redelivered && twice && (*redelivered > 0 || *twice > 0)) {
      duplicates += inline_text(
          fmt::format(" ({} redelivered, {} persisted twice)", format_count(redelivered), format_count(twice)));
    }
    t.rows.push_back({code(app.subscription), format_count(get("unique")), duplicates,
                      format_count(get("orderingViolations")), format_count(get("invalid")), format_count(missing),
                      format_count(get("podRestarts")), samples});
  }
  s.blocks.push_back(std::move(t));
  std::string unknown;
  for (const auto& app : run.applications) {
    if (!app.summary) unknown += (unknown.empty() ? "" : ", ") + app.subscription;
  }
  if (!clean) {
    s.blocks.push_back(paragraph{bold("Ordering violations, invalid or missing messages were found.")});
  } else if (!unknown.empty()) {
    s.blocks.push_back(paragraph{bold(fmt::format("Unknown for {}: no application summary.", unknown))});
  } else {
    s.blocks.push_back(paragraph{"No ordering violations, invalid or missing messages."});
  }
  s.blocks.push_back(paragraph{
      "A correct run delivers every message the gateways got a receipt for, warmup included, to every "
      "application, in order per device. Duplicates are allowed by at-least-once delivery and are counted so "
      "that runs can be compared; of the duplicates of a device's latest message, \"redelivered\" came again with the "
      "same message id (the broker delivered the entry again) and \"persisted twice\" with another (a resend stored "
      "twice). Missing is the difference between the gateways' and the application's device "
      "state at the end."});
  return s;
}

section throughput_section(const run_data& run) {
  section s{"Throughput", {}};
  const auto& g = run.gateways.summary;
  if (g) {
    table t{{"Gateways", "Value"}, {false, true}, {}};
    t.rows.push_back({"Measured throughput", format_decimal(number(g, "messagesPerSecond"), 1) + " msg/s"});
    t.rows.push_back(
        {"Whole run (warmup included)", format_decimal(number(g, "wholeRunMessagesPerSecond"), 1) + " msg/s"});
    t.rows.push_back({"Measured messages", format_count(number(g, "measuredMessages"))});
    t.rows.push_back({"Warmup messages", format_count(number(g, "warmupMessages"))});
    auto start = number(g, "measurementStartEpochMillis");
    auto end = number(g, "measurementEndEpochMillis");
    if (start && end && *end > *start) {
      t.rows.push_back({"Measurement duration", format_decimal((*end - *start) / 1000.0, 1) + " s"});
    }
    t.rows.push_back({"Send errors", format_count(number(g, "sendErrors"))});
    t.rows.push_back({"Timed out", or_dash(text(g, "timedOut"))});
    s.blocks.push_back(std::move(t));
  } else {
    s.blocks.push_back(paragraph{"No gateway figures: " + code("gateways/gateways-summary.json") + " is missing."});
  }
  if (!run.applications.empty()) {
    table t{{"Application", "Received (measured)", "Measured messages", "Draining after the gateways finished",
             "Timed out"},
            {false, true, true, true, false},
            {}};
    auto gateways_end = number(g, "measurementEndEpochMillis");
    for (const auto& app : run.applications) {
      std::optional<double> draining;
      if (auto last = number(app.summary, "lastMeasuredReceiptEpochMillis"); last && gateways_end && *last > 0) {
        draining = std::max(0.0, (*last - *gateways_end) / 1000.0);
      }
      t.rows.push_back({code(app.subscription), format_decimal(number(app.summary, "messagesPerSecond"), 1) + " msg/s",
                        format_count(number(app.summary, "measuredReceived")),
                        draining ? format_decimal(draining, 1) + " s" : "–", or_dash(text(app.summary, "timedOut"))});
    }
    s.blocks.push_back(std::move(t));
  }
  if (auto note = late_throughput_note(run)) s.blocks.push_back(std::move(*note));
  return s;
}

section latency_section(const run_data& run) {
  section s{"Latency", {}};
  auto rows = latency_rows(run);
  if (rows.empty()) {
    s.blocks.push_back(paragraph{"No latency figures: the summaries and .hgrm files are missing."});
    return s;
  }
  table t{{"Latency (ms)", "p50", "p95", "p99", "p99.9", "max"}, {false, true, true, true, true, true}, {}};
  for (const auto& row : rows) {
    std::vector<inline_text> cells{row.label};
    for (const auto& v : row.millis) cells.emplace_back(format_millis(v));
    t.rows.push_back(std::move(cells));
  }
  s.blocks.push_back(std::move(t));
  s.blocks.push_back(paragraph{
      "Publish latency runs from the send to the broker's receipt; measured from the intended send time it also "
      "counts the time a message waited behind the fixed-rate schedule (no coordinated omission). End-to-end "
      "latency runs from the publish time to the application's receipt. Measured messages only; each "
      "application separately."});
  return s;
}

section backlog_section(const run_data& run) {
  section s{"Backlog and rates", {}};
  if (run.backlog.empty()) {
    s.blocks.push_back(paragraph{"No topic stats: " + code("topic-stats.csv") + " is missing or empty."});
    return s;
  }
  table t{{"Subscription", "Max backlog", "Final backlog", "Peak in-rate", "Peak out-rate", "Samples"},
          {false, true, true, true, true, true},
          {}};
  for (const auto& [subscription, samples] : run.backlog) {
    // A topic sampled before anyone subscribed has a row with no subscription.
    if (subscription.empty()) continue;
    double max_backlog = 0, peak_in = 0, peak_out = 0;
    for (std::size_t i = 0; i < samples.size(); ++i) {
      max_backlog = std::max(max_backlog, samples[i].backlog);
      if (i == 0) continue;
      double seconds = static_cast<double>(samples[i].epoch_millis - samples[i - 1].epoch_millis) / 1000.0;
      if (seconds <= 0) continue;
      peak_in = std::max(peak_in, (samples[i].in_counter - samples[i - 1].in_counter) / seconds);
      peak_out = std::max(peak_out, (samples[i].out_counter - samples[i - 1].out_counter) / seconds);
    }
    t.rows.push_back({code(subscription), format_count(max_backlog),
                      format_count(samples.empty() ? std::nullopt : std::optional(samples.back().backlog)),
                      format_decimal(peak_in, 1) + " msg/s", format_decimal(peak_out, 1) + " msg/s",
                      format_count(static_cast<double>(samples.size()))});
  }
  s.blocks.push_back(std::move(t));
  s.blocks.push_back(
      paragraph{"Sampled from the broker's topic stats once per second and summed over the topics; a sampled maximum "
                "is not the exact peak between samples."});
  return s;
}

section charts_section(const chart_set& charts, const fs::path& base_dir) {
  section s{"Charts", {}};
  for (const auto& c : charts.drawn) {
    s.blocks.push_back(image_row{{{c.title, c.png.lexically_relative(base_dir).generic_string()}}});
  }
  if (!charts.notes.empty()) {
    bullet_list notes;
    for (const auto& note : charts.notes) notes.items.emplace_back(note);
    s.blocks.push_back(std::move(notes));
  }
  if (!charts.drawn.empty()) {
    s.blocks.push_back(
        paragraph{"Time axes count seconds from the run's start; dashed vertical lines mark the run's events. The "
                  "percentile axis spreads the tail: each step right is ten times rarer."});
  }
  return s;
}

section host_section(const run_data& run) {
  section s{"Host", {}};
  if (!run.run_info) {
    s.blocks.push_back(paragraph{"No host details: " + code("run-info.json") + " is missing."});
    return s;
  }
  table t{{"Property", "Value"}, {false, false}, {}};
  nlohmann::json host = run.run_info->contains("host") ? (*run.run_info)["host"] : nlohmann::json::object();
  t.rows.push_back({"Hostname", or_dash(json_text(host, "hostname"))});
  t.rows.push_back({"CPUs", or_dash(json_text(host, "cpus"))});
  if (auto model = json_text(host, "cpuModel")) t.rows.push_back({"CPU model", *model});
  if (auto memory = json_number(host, "memoryBytes"); memory && *memory > 0) {
    t.rows.push_back({"Memory", format_decimal(*memory / (1024.0 * 1024 * 1024), 1) + " GiB"});
  }
  t.rows.push_back({"Kernel", or_dash(json_text(host, "kernel"))});
  t.rows.push_back({"magnetar version", or_dash(text(run.run_info, "magnetarVersion"))});
  if (auto url = text(run.run_info, "serviceUrl")) t.rows.push_back({"Service URL", code(*url)});
  if (auto url = text(run.run_info, "adminUrl")) t.rows.push_back({"Admin URL", code(*url)});
  s.blocks.push_back(std::move(t));
  return s;
}

section files_section(const run_data& run) {
  section s{"Files", {}};
  bullet_list files;
  for (const auto& file : run.existing_files()) files.items.push_back(link(file, file));
  if (files.items.empty()) {
    s.blocks.push_back(paragraph{"The run directory holds none of the run's files."});
  } else {
    s.blocks.push_back(paragraph{"The run's raw files (magnetar's docs/run-reports.md says what each holds):"});
    s.blocks.push_back(std::move(files));
  }
  return s;
}

}  // namespace

verdict run_verdict(const run_data& run) {
  verdict v;
  auto passed = run.passed();
  if (!passed) {
    v.outcome = verdict::state::unknown;
    v.label = "UNKNOWN";
    v.reasons.push_back(run.run_info ? "run-info.json does not say whether the run passed"
                                     : "run-info.json is missing: the run did not finish");
  } else {
    v.outcome = *passed ? verdict::state::passed : verdict::state::failed;
    v.label = *passed ? "PASSED" : "FAILED";
  }
  for (auto& reason : run.failures()) v.reasons.push_back(std::move(reason));
  if (v.outcome == verdict::state::failed && v.reasons.empty()) v.reasons.push_back("run-info.json names no reason");
  return v;
}

document run_document(const run_data& run, const chart_set& charts, const fs::path& base_dir) {
  document doc;
  doc.title = run.run_id.empty() ? fmt::format("Run report: {}", run.name)
                                 : fmt::format("Run report: {} ({})", run.name, run.run_id);
  section head{"", {run_verdict(run)}};
  auto started = text(run.run_info, "startedAt");
  auto finished = text(run.run_info, "finishedAt");
  if (started) {
    head.blocks.push_back(paragraph{fmt::format("Started {}{}.", *started, finished ? ", finished " + *finished : "")});
  }
  doc.sections.push_back(std::move(head));
  if (!run.missing.empty() || !run.unreadable.empty()) doc.sections.push_back(missing_section(run));
  doc.sections.push_back(settings_section(run));
  if (run.network) doc.sections.push_back(network_section(*run.network));
  doc.sections.push_back(correctness_section(run));
  if (run.remote) doc.sections.push_back(remote_section(run));
  doc.sections.push_back(throughput_section(run));
  if (has_late_applications(run)) doc.sections.push_back(catch_up_section(run));
  doc.sections.push_back(latency_section(run));
  doc.sections.push_back(backlog_section(run));
  doc.sections.push_back(charts_section(charts, base_dir));
  doc.sections.push_back(host_section(run));
  doc.sections.push_back(files_section(run));
  return doc;
}

}  // namespace magnetar::perf::report
