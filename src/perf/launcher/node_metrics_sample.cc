#include "perf/launcher/node_metrics_sample.h"

#include <fmt/format.h>

#include <charconv>
#include <utility>

namespace magnetar::perf {

namespace {

struct metric {
  std::string_view name;
  std::string_view labels;  // between the braces
  double value = 0;
};

// "name{labels} value [timestamp]"; nullopt for comments and lines that do not parse.
std::optional<metric> metric_line(std::string_view line) {
  if (line.empty() || line.front() == '#') return std::nullopt;
  const auto name_end = line.find_first_of("{ ");
  if (name_end == std::string_view::npos) return std::nullopt;
  const auto name = line.substr(0, name_end);
  auto rest = line.substr(name_end);
  std::string_view labels;
  if (rest.front() == '{') {
    const auto close = rest.rfind('}');
    if (close == std::string_view::npos) return std::nullopt;
    labels = rest.substr(1, close - 1);
    rest = rest.substr(close + 1);
  }
  const auto start = rest.find_first_not_of(' ');
  if (start == std::string_view::npos) return std::nullopt;
  rest = rest.substr(start);
  double value = 0;
  if (std::from_chars(rest.data(), rest.data() + rest.size(), value).ec != std::errc{}) return std::nullopt;
  return metric{name, labels, value};
}

// Calls `each` with every sample line of the text.
template <class Each>
void for_each_metric(std::string_view text, Each&& each) {
  while (!text.empty()) {
    const auto end = text.find('\n');
    const auto line = text.substr(0, end);
    text = end == std::string_view::npos ? std::string_view{} : text.substr(end + 1);
    if (const auto m = metric_line(line)) each(*m);
  }
}

}  // namespace

std::optional<broker_metrics_sample> parse_broker_metrics(std::string_view text) {
  broker_metrics_sample sample;
  bool any = false;
  for_each_metric(text, [&](const metric& m) {
    double* field = m.name == "magnetar_ml_cache_hits_total"        ? &sample.cache_hits
                    : m.name == "magnetar_ml_cache_misses_total"    ? &sample.cache_misses
                    : m.name == "magnetar_ml_cache_inserts_total"   ? &sample.cache_inserts
                    : m.name == "magnetar_ml_cache_evictions_total" ? &sample.cache_evictions
                    : m.name == "pulsar_ml_cache_used_size"         ? &sample.cache_bytes
                    : m.name == "pulsar_rate_in"                    ? &sample.msg_rate_in
                    : m.name == "pulsar_rate_out"                   ? &sample.msg_rate_out
                                                                    : nullptr;
    if (field == nullptr) return;
    *field += m.value;
    any = any || field != &sample.cache_bytes;
  });
  if (!any) return std::nullopt;
  return sample;
}

std::string broker_metrics_csv_line(std::int64_t epoch_millis, std::string_view node, const broker_metrics_sample& s) {
  return fmt::format("{},{},{:.0f},{:.0f},{:.0f},{:.0f},{:.0f},{:.1f},{:.1f}", epoch_millis, node, s.cache_hits,
                     s.cache_misses, s.cache_inserts, s.cache_evictions, s.cache_bytes, s.msg_rate_in, s.msg_rate_out);
}

std::optional<bookie_metrics_sample> parse_bookie_metrics(std::string_view text) {
  bookie_metrics_sample sample;
  bool any = false;
  for_each_metric(text, [&](const metric& m) {
    // The failures' counts carry success="false"; only the successful ones are timed.
    if (m.labels.find("success=\"false\"") != std::string_view::npos) return;
    double* field = m.name == "bookkeeper_server_ADD_ENTRY_REQUEST_count" ? &sample.adds
                    : m.name == "bookkeeper_server_ADD_ENTRY_REQUEST_sum" ? &sample.add_millis
                    : m.name == "bookie_journal_JOURNAL_SYNC_count"       ? &sample.journal_syncs
                    : m.name == "bookie_journal_JOURNAL_SYNC_sum"         ? &sample.journal_sync_millis
                                                                          : nullptr;
    if (field == nullptr) return;
    *field += m.value;
    any = true;
  });
  if (!any) return std::nullopt;
  return sample;
}

std::string bookie_metrics_csv_line(std::int64_t epoch_millis, std::string_view node, const bookie_metrics_sample& s) {
  return fmt::format("{},{},{:.0f},{:.3f},{:.0f},{:.3f}", epoch_millis, node, s.adds, s.add_millis, s.journal_syncs,
                     s.journal_sync_millis);
}

}  // namespace magnetar::perf
