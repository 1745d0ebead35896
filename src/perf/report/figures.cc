#include "perf/report/figures.h"

#include "perf/report/catch_up.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

namespace magnetar::perf::report {
namespace {

std::array<std::optional<double>, 5> from_summary(const std::optional<nlohmann::json>& summary, const char* key,
                                                  const std::vector<percentile_point>& hgrm) {
  std::array<std::optional<double>, 5> millis;
  const nlohmann::json* figures = nullptr;
  if (summary) {
    auto it = summary->find(key);
    if (it != summary->end() && it->is_object()) figures = &*it;
  }
  constexpr std::array<double, 5> quantiles = {0.5, 0.95, 0.99, 0.999, 1.0};
  for (std::size_t i = 0; i < millis.size(); ++i) {
    if (figures) millis[i] = json_number(*figures, percentile_keys[i]);
    if (!millis[i]) millis[i] = value_at(hgrm, quantiles[i]);
  }
  return millis;
}

bool any(const std::array<std::optional<double>, 5>& values) {
  return std::any_of(values.begin(), values.end(), [](const auto& v) { return v.has_value(); });
}

// Built anew rather than with insert(): GCC 12 warns falsely (-Wrestrict) about inserting
// into a string.
std::string group_thousands(const std::string& digits) {
  auto dot = digits.find('.');
  std::size_t end = dot == std::string::npos ? digits.size() : dot;
  std::size_t begin = !digits.empty() && digits[0] == '-' ? 1 : 0;
  std::string out = digits.substr(0, begin);
  for (std::size_t i = begin; i < end; ++i) {
    if (i > begin && (end - i) % 3 == 0) out += ',';
    out += digits[i];
  }
  out += digits.substr(end);
  return out;
}

// A geo-replicated run's remote side (group "Geo-replication"): each remote application's
// correctness and end-to-end latency, the replicators' worst backlog and delay.
void remote_figures(const run_data& run, std::vector<key_figure>& figures) {
  using enum key_figure::better;
  constexpr const char* group = "Geo-replication";
  for (const auto& app : run.remote->applications) {
    const auto number = [&](const char* key) { return app.summary ? json_number(*app.summary, key) : std::nullopt; };
    const auto name = "remote " + app.subscription;
    figures.push_back({group, name + " received", number("messagesPerSecond"), "msg/s"});
    figures.push_back({group, name + " missing", run.remote_missing_messages(app.subscription), "", lower});
    figures.push_back({group, name + " ordering violations", number("orderingViolations"), "", lower});
    const auto latency = from_summary(app.summary, "endToEndLatencyMillis", app.latency);
    figures.push_back({group, name + " end to end p50", latency[0], "ms", lower});
    figures.push_back({group, name + " end to end p99", latency[2], "ms", lower});
  }
  if (run.remote->replication.empty()) return;
  double backlog = 0, delay = 0;
  for (const auto& s : run.remote->replication) {
    backlog = std::max(backlog, s.backlog);
    delay = std::max(delay, s.max_delay_seconds);
  }
  figures.push_back({group, "max replication backlog", backlog, "", lower});
  figures.push_back({group, "max replication delay", delay, "s", lower});
}

}  // namespace

std::vector<latency_row> latency_rows(const run_data& run) {
  std::vector<latency_row> rows;
  auto publish = from_summary(run.gateways.summary, "publishLatencyMillis", run.gateways.latency);
  if (any(publish)) rows.push_back({"Publish (send to receipt)", publish});
  auto intended = from_summary(run.gateways.summary, "intendedLatencyMillis", run.gateways.intended_latency);
  if (any(intended)) rows.push_back({"Publish from intended send time", intended});
  for (const auto& app : run.applications) {
    auto end_to_end = from_summary(app.summary, "endToEndLatencyMillis", app.latency);
    if (any(end_to_end)) rows.push_back({"End to end, " + app.subscription, end_to_end});
  }
  return rows;
}

std::vector<key_figure> key_figures(const run_data& run) {
  using enum key_figure::better;
  std::vector<key_figure> figures;
  const auto& gateways = run.gateways.summary;
  auto gateway_number = [&](const char* key) {
    return gateways ? json_number(*gateways, key) : std::optional<double>();
  };
  figures.push_back({"Throughput", "Gateways, measured", gateway_number("messagesPerSecond"), "msg/s"});
  figures.push_back({"Throughput", "Gateways, whole run", gateway_number("wholeRunMessagesPerSecond"), "msg/s"});
  for (const auto& app : run.applications) {
    figures.push_back({"Throughput", app.subscription + " received",
                       app.summary ? json_number(*app.summary, "messagesPerSecond") : std::nullopt, "msg/s"});
  }
  for (const auto& row : latency_rows(run)) {
    for (std::size_t i = 0; i < row.millis.size(); ++i) {
      auto label = fmt::format("{} {}", row.label, percentile_labels[i]);
      figures.push_back({"Latency", std::move(label), row.millis[i], "ms", lower});
    }
  }
  figures.push_back({"Correctness", "Gateways send errors", gateway_number("sendErrors"), "", lower});
  for (const auto& app : run.applications) {
    auto number = [&](const char* key) { return app.summary ? json_number(*app.summary, key) : std::nullopt; };
    figures.push_back({"Correctness", app.subscription + " unique", number("unique"), "", neither});
    figures.push_back({"Correctness", app.subscription + " duplicates", number("duplicates"), "", lower});
    figures.push_back(
        {"Correctness", app.subscription + " ordering violations", number("orderingViolations"), "", lower});
    figures.push_back({"Correctness", app.subscription + " invalid", number("invalid"), "", lower});
    auto missing = run.missing_messages(app.subscription);
    figures.push_back({"Correctness", app.subscription + " missing", missing, "", lower});
  }
  for (const auto& row : catch_up_rows(run)) {
    figures.push_back({"Catch-up", row.subscription + " catch-up time", row.catch_up_seconds, "s", lower});
    figures.push_back({"Catch-up", row.subscription + " catch-up rate", row.catch_up_rate, "msg/s"});
  }
  for (const auto& [subscription, samples] : run.backlog) {
    double max_backlog = 0;
    for (const auto& s : samples) max_backlog = std::max(max_backlog, s.backlog);
    figures.push_back({"Backlog", subscription + " max backlog", max_backlog, "", lower});
  }
  if (run.remote) remote_figures(run, figures);
  return figures;
}

std::string format_count(std::optional<double> value) {
  if (!value) return "–";
  return group_thousands(fmt::format("{:.0f}", *value));
}

std::string format_decimal(std::optional<double> value, int decimals) {
  if (!value) return "–";
  // A value that rounds to zero prints as 0, never as -0.
  const double shown = std::abs(*value) < 0.5 * std::pow(10.0, -decimals) ? 0.0 : *value;
  return group_thousands(fmt::format("{:.{}f}", shown, decimals));
}

std::string format_millis(std::optional<double> value) {
  if (!value) return "–";
  double magnitude = std::abs(*value);
  int decimals = magnitude < 1 ? 3 : magnitude < 10 ? 2 : magnitude < 100 ? 1 : 0;
  return format_decimal(value, decimals);
}

std::string format_figure(const key_figure& figure) {
  if (figure.unit == "ms") return format_millis(figure.value);
  if (figure.unit == "msg/s") return format_decimal(figure.value, 1);
  if (figure.unit == "s") return format_decimal(figure.value, 1);
  return format_count(figure.value);
}

}  // namespace magnetar::perf::report
