#include "perf/launcher/broker_metrics_sample.h"

#include <fmt/format.h>

#include <charconv>
#include <utility>

namespace magnetar::perf {

namespace {

// "name{labels} value [timestamp]" -> {name, value}; nullopt for comments and lines
// that do not parse.
std::optional<std::pair<std::string_view, double>> metric_line(std::string_view line) {
  if (line.empty() || line.front() == '#') return std::nullopt;
  const auto name_end = line.find_first_of("{ ");
  if (name_end == std::string_view::npos) return std::nullopt;
  const auto name = line.substr(0, name_end);
  auto rest = line.substr(name_end);
  if (rest.front() == '{') {
    const auto close = rest.rfind('}');
    if (close == std::string_view::npos) return std::nullopt;
    rest = rest.substr(close + 1);
  }
  const auto start = rest.find_first_not_of(' ');
  if (start == std::string_view::npos) return std::nullopt;
  rest = rest.substr(start);
  double value = 0;
  if (std::from_chars(rest.data(), rest.data() + rest.size(), value).ec != std::errc{}) return std::nullopt;
  return std::pair{name, value};
}

}  // namespace

std::optional<broker_metrics_sample> parse_broker_metrics(std::string_view text) {
  broker_metrics_sample sample;
  bool any = false;
  while (!text.empty()) {
    const auto end = text.find('\n');
    const auto line = text.substr(0, end);
    text = end == std::string_view::npos ? std::string_view{} : text.substr(end + 1);
    const auto metric = metric_line(line);
    if (!metric) continue;
    const auto& [name, value] = *metric;
    double* field = name == "magnetar_ml_cache_hits_total"        ? &sample.cache_hits
                    : name == "magnetar_ml_cache_misses_total"    ? &sample.cache_misses
                    : name == "magnetar_ml_cache_inserts_total"   ? &sample.cache_inserts
                    : name == "magnetar_ml_cache_evictions_total" ? &sample.cache_evictions
                    : name == "pulsar_ml_cache_used_size"         ? &sample.cache_bytes
                                                                  : nullptr;
    if (field == nullptr) continue;
    *field += value;
    any = any || field != &sample.cache_bytes;
  }
  if (!any) return std::nullopt;
  return sample;
}

std::string broker_metrics_csv_line(std::int64_t epoch_millis, const broker_metrics_sample& s) {
  return fmt::format("{},{:.0f},{:.0f},{:.0f},{:.0f},{:.0f}", epoch_millis, s.cache_hits, s.cache_misses,
                     s.cache_inserts, s.cache_evictions, s.cache_bytes);
}

}  // namespace magnetar::perf
