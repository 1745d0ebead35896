#include "perf/network/network_record.h"

#include "base/errc.h"

#include <fmt/format.h>

#include <fcntl.h>
#include <unistd.h>
#include <cerrno>
#include <cstring>
#include <mutex>

namespace magnetar::perf {
namespace {

using std::chrono::duration_cast;
using std::chrono::milliseconds;

std::int64_t epoch_millis(std::chrono::system_clock::time_point t) {
  return duration_cast<milliseconds>(t.time_since_epoch()).count();
}

std::string_view state_name(impairment_state state) {
  switch (state) {
    case impairment_state::pending: return "never-applied";
    case impairment_state::active: return "active";
    case impairment_state::ended: return "ended";
    case impairment_state::failed: return "failed";
  }
  return "failed";
}

nlohmann::json settings_json(const impairment_settings& s) {
  nlohmann::json out = nlohmann::json::object();
  if (s.delay.count() > 0) out["delayMicros"] = s.delay.count();
  if (s.jitter.count() > 0) out["jitterMicros"] = s.jitter.count();
  if (s.reorder) out["reorder"] = true;
  if (s.loss_percent > 0) out["lossPercent"] = s.loss_percent;
  if (s.loss_burst > 0) out["lossBurst"] = s.loss_burst;
  if (s.rate_bits > 0) {
    out["rateBits"] = s.rate_bits;
    out["queueBytes"] = s.queue_or_default();
  }
  if (s.start) {
    out["startMillis"] = s.start->count();
    out["anchor"] = s.anchor == impairment_anchor::measurement ? "measurement" : "gateways";
  }
  if (s.duration) out["durationMillis"] = s.duration->count();
  return out;
}

}  // namespace

result<void> append_network_event(const std::filesystem::path& file, const network_event& event) {
  static std::mutex mutex;
  const auto line = nlohmann::json{{"epochMillis", epoch_millis(event.at)},
                                   {"impairment", event.impairment},
                                   {"action", event.action},
                                   {"detail", event.detail}}
                        .dump() +
                    "\n";
  std::lock_guard lock(mutex);
  const int fd = ::open(file.c_str(), O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
  if (fd < 0) return fail(base::errc::io_error, fmt::format("open {}: {}", file.string(), std::strerror(errno)));
  const auto written = ::write(fd, line.data(), line.size());
  ::close(fd);
  if (written != static_cast<ssize_t>(line.size())) {
    return fail(base::errc::io_error, fmt::format("write {}", file.string()));
  }
  return success();
}

nlohmann::json network_summary(const std::vector<planned_impairment>& plan,
                               const std::vector<impairment_record>& records, const nlohmann::json& probe,
                               std::optional<std::chrono::system_clock::time_point> measurement_started) {
  nlohmann::json impairments = nlohmann::json::array();
  for (std::size_t i = 0; i < plan.size() && i < records.size(); ++i) {
    const auto& p = plan[i];
    const auto& r = records[i];
    nlohmann::json pairs = nlohmann::json::array();
    for (const auto& pair : p.pairs) pairs.push_back(fmt::format("{} -> {}", pair.from.name, pair.to.name));
    nlohmann::json item{{"name", r.name},
                        {"kind", kind_name(r.kind)},
                        {"method", r.method},
                        {"from", p.settings.from},
                        {"to", p.settings.to},
                        {"bothWays", p.settings.both_ways},
                        {"pairs", pairs},
                        {"settings", settings_json(p.settings)},
                        {"state", state_name(r.state)},
                        {"droppedPackets", r.dropped_packets},
                        {"queuedPackets", r.queued_packets},
                        {"retransmissions", r.retransmissions}};
    const auto relative = [&](std::chrono::system_clock::time_point t) {
      return measurement_started ? duration_cast<milliseconds>(t - *measurement_started).count() : epoch_millis(t);
    };
    if (r.applied_at) item["appliedMillis"] = relative(*r.applied_at);
    if (r.removed_at) item["removedMillis"] = relative(*r.removed_at);
    if (!r.error.empty()) item["error"] = r.error;
    if (r.matched_connections) item["matchedConnections"] = *r.matched_connections;
    if (!r.forwarder_stats.empty()) {
      auto stats = nlohmann::json::parse(r.forwarder_stats, nullptr, false);
      if (!stats.is_discarded()) item["forwarder"] = stats;
    }
    impairments.push_back(std::move(item));
  }
  return nlohmann::json{{"probe", probe},
                        {"timesRelativeTo", measurement_started ? "measurement-started" : "epoch"},
                        {"impairments", impairments}};
}

std::vector<std::string> network_verdict(const std::vector<impairment_record>& records) {
  std::vector<std::string> failures;
  for (const auto& r : records) {
    if (r.state == impairment_state::failed) {
      failures.push_back(fmt::format("network impairment {} failed: {}", r.name, r.error));
    } else if (r.state == impairment_state::pending) {
      failures.push_back(fmt::format("network impairment {} never acted (the run ended before its start)", r.name));
    } else if (r.matched_connections && *r.matched_connections == 0) {
      failures.push_back(
          fmt::format("network impairment {} ({}) found no connection to act on", r.name, kind_name(r.kind)));
    }
  }
  return failures;
}

}  // namespace magnetar::perf
