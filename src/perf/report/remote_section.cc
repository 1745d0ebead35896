#include "perf/report/remote_section.h"

#include "perf/report/figures.h"

#include <fmt/format.h>

#include <algorithm>

namespace magnetar::perf::report {
namespace {

std::optional<double> number(const std::optional<nlohmann::json>& object, const char* key) {
  return object ? json_number(*object, key) : std::nullopt;
}

table correctness_table(const run_data& run, bool& clean) {
  table t{
      {"Remote application", "Unique", "Duplicates", "Ordering violations", "Invalid", "Missing", "Violation samples"},
      {false, true, true, true, true, true, false},
      {}};
  for (const auto& app : run.remote->applications) {
    const auto get = [&](const char* key) { return number(app.summary, key); };
    const auto missing = run.remote_missing_messages(app.subscription);
    for (auto v : {get("orderingViolations"), get("invalid"), missing}) clean = clean && v.value_or(0) == 0;
    clean = clean && app.summary.has_value();
    inline_text samples = "–";
    if (app.has_violations_file && app.violation_samples > 0) {
      const auto file = fmt::format("remote-applications/{}/ordering-violations.txt", app.subscription);
      samples = link(fmt::format("{} sample(s)", app.violation_samples), file);
    }
    t.rows.push_back({code(app.subscription), format_count(get("unique")), format_count(get("duplicates")),
                      format_count(get("orderingViolations")), format_count(get("invalid")), format_count(missing),
                      samples});
  }
  return t;
}

table latency_table(const run_data& run) {
  table t{{"End-to-end latency (ms)", "p50", "p95", "p99", "p99.9", "max"}, {false, true, true, true, true, true}, {}};
  for (const auto& app : run.remote->applications) {
    std::vector<inline_text> cells{code(app.subscription)};
    // An application that received nothing has no latency, not one of 0 ms.
    const bool received = number(app.summary, "unique").value_or(0) > 0;
    const auto latency = app.summary && received ? app.summary->value("endToEndLatencyMillis", nlohmann::json::object())
                                                 : nlohmann::json::object();
    for (const char* key : percentile_keys) cells.emplace_back(format_millis(json_number(latency, key)));
    t.rows.push_back(std::move(cells));
  }
  return t;
}

// The replicators over the run: the backlog's peak and end, the worst delay, samples
// with one disconnected, the peak send rate.
block replication_block(const remote_data& remote) {
  if (!remote.has_replication_stats) {
    return paragraph{code("replication-stats.csv") + inline_text(" is missing: the replicators were not sampled.")};
  }
  if (remote.replication.empty()) {
    return paragraph{bold("No replicator was found:") +
                     inline_text(" the local topics' stats never had a replication section, so nothing was "
                                 "replicated (is replication switched on, and does the broker replicate?).")};
  }
  double max_backlog = 0, max_delay = 0, peak_rate = 0;
  int disconnected_samples = 0;
  for (const auto& s : remote.replication) {
    max_backlog = std::max(max_backlog, s.backlog);
    max_delay = std::max(max_delay, s.max_delay_seconds);
    peak_rate = std::max(peak_rate, s.rate_out);
    if (s.disconnected > 0) ++disconnected_samples;
  }
  table t{{"Replication", "Value"}, {false, true}, {}};
  t.rows.push_back({"Max replication backlog", format_count(max_backlog)});
  t.rows.push_back({"Final replication backlog", format_count(remote.replication.back().backlog)});
  t.rows.push_back({"Max replication delay", format_decimal(max_delay, 0) + " s"});
  t.rows.push_back({"Peak replication rate", format_decimal(peak_rate, 1) + " msg/s"});
  t.rows.push_back({"Samples with a disconnected replicator",
                    fmt::format("{} of {}", disconnected_samples, remote.replication.size())});
  return t;
}

table remote_backlog_table(const remote_data& remote) {
  table t{{"Remote subscription", "Max backlog", "Final backlog", "Samples"}, {false, true, true, true}, {}};
  for (const auto& [subscription, samples] : remote.backlog) {
    // A topic sampled before anyone subscribed has a row with no subscription.
    if (subscription.empty()) continue;
    double max_backlog = 0;
    for (const auto& s : samples) max_backlog = std::max(max_backlog, s.backlog);
    t.rows.push_back({code(subscription), format_count(max_backlog),
                      format_count(samples.empty() ? std::nullopt : std::optional(samples.back().backlog)),
                      format_count(static_cast<double>(samples.size()))});
  }
  return t;
}

}  // namespace

section remote_section(const run_data& run) {
  section s{"Remote applications", {}};
  const auto& remote = *run.remote;
  s.blocks.push_back(paragraph{
      "The remote cluster's applications read the messages replicated from the local cluster, with the workload's "
      "subscriptions, and are checked as the local ones are: every message the gateways got a receipt for, in order "
      "per device. Their end-to-end latency runs from the original publish time (kept by replication) to their "
      "receipt, so it holds the replication's delay."});
  if (remote.applications.empty()) {
    s.blocks.push_back(paragraph{bold("No remote application ran.")});
  } else {
    bool clean = true;
    s.blocks.push_back(correctness_table(run, clean));
    s.blocks.push_back(paragraph{clean ? inline_text("No ordering violations, invalid or missing messages.")
                                       : bold("Ordering violations, invalid or missing messages were found, or an "
                                              "application left no summary.")});
    s.blocks.push_back(latency_table(run));
  }
  s.blocks.push_back(replication_block(remote));
  if (!remote.backlog.empty()) s.blocks.push_back(remote_backlog_table(remote));
  s.blocks.push_back(paragraph{inline_text("Sampled once a second: the replicators from the local topics' stats (") +
                               link("replication-stats.csv", "replication-stats.csv") +
                               inline_text("), the remote subscriptions' backlog from the remote cluster's (") +
                               link("remote-topic-stats.csv", "remote-topic-stats.csv") + inline_text(").")});
  return s;
}

}  // namespace magnetar::perf::report
