#include "perf/launcher/replication_stats.h"

#include "base/errc.h"

#include <fmt/format.h>
#include <nlohmann/json.hpp>

namespace magnetar::perf {

namespace {

double number_field(const nlohmann::json& object, const char* key) {
  const auto found = object.find(key);
  return found != object.end() && found->is_number() ? found->get<double>() : 0.0;
}

}  // namespace

result<std::vector<replication_stats_row>> parse_replication_stats(std::string_view topic, std::string_view json_body) {
  const auto stats = nlohmann::json::parse(json_body, nullptr, /*allow_exceptions=*/false);
  if (!stats.is_object()) {
    return fail(base::errc::invalid_argument, fmt::format("stats of {}: not a JSON object", topic));
  }
  std::vector<replication_stats_row> rows;
  const auto replication = stats.find("replication");
  if (replication == stats.end() || !replication->is_object()) return rows;
  for (const auto& [cluster, r] : replication->items()) {
    if (!r.is_object()) continue;
    const auto connected = r.find("connected");
    rows.push_back(
        {.topic = std::string(topic),
         .remote_cluster = cluster,
         .msg_rate_in = number_field(r, "msgRateIn"),
         .msg_rate_out = number_field(r, "msgRateOut"),
         .msg_throughput_out = number_field(r, "msgThroughputOut"),
         .replication_backlog = static_cast<std::int64_t>(number_field(r, "replicationBacklog")),
         .connected = connected != r.end() && connected->is_boolean() && connected->get<bool>(),
         .replication_delay_seconds = static_cast<std::int64_t>(number_field(r, "replicationDelayInSeconds"))});
  }
  return rows;
}

std::string replication_stats_csv_line(std::int64_t epoch_millis, const replication_stats_row& row) {
  return fmt::format("{},{},{},{:.3f},{:.3f},{:.1f},{},{},{}", epoch_millis, row.topic, row.remote_cluster,
                     row.msg_rate_in, row.msg_rate_out, row.msg_throughput_out, row.replication_backlog,
                     row.connected ? "true" : "false", row.replication_delay_seconds);
}

}  // namespace magnetar::perf
