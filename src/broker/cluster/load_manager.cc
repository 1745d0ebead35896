#include "broker/cluster/load_manager.h"

#include "io/run_on.h"
#include "meta/errc.h"

#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include <unistd.h>

#include <algorithm>
#include <fstream>
#include <sstream>
#include <vector>

namespace magnetar::broker::cluster {
namespace {

using nlohmann::json;
using steady = std::chrono::steady_clock;

// Minimum excess over the mean, in msg/s, before a broker counts as overloaded.
constexpr double min_excess_rate = 100;

// User and system CPU time of this process, from /proc/self/stat; -1 when unreadable.
double process_cpu_seconds() {
  std::ifstream file("/proc/self/stat");
  std::string text((std::istreambuf_iterator<char>(file)), std::istreambuf_iterator<char>());
  // Fields after the command name (which may hold spaces) in parentheses.
  const auto close = text.rfind(')');
  if (close == std::string::npos) return -1;
  std::istringstream fields(text.substr(close + 2));
  std::string field;
  double utime = 0, stime = 0;
  for (int i = 3; i <= 15 && fields >> field; ++i) {
    if (i == 14) utime = std::stod(field);
    if (i == 15) stime = std::stod(field);
  }
  return (utime + stime) / static_cast<double>(::sysconf(_SC_CLK_TCK));
}

}  // namespace

load_manager::load_manager(meta::store& store, bundle_ownership& ownership, topic_admin& topics, unloader unload,
                           asio::any_io_executor executor, load_settings settings)
    : _store(store),
      _ownership(ownership),
      _topics(topics),
      _unload(std::move(unload)),
      _executor(executor),
      _settings(settings),
      _timer(executor, base::system_clock()),
      _next_shedding(steady::now() + settings.shedding_interval) {}

load_manager::~load_manager() = default;

void load_manager::start() {
  auto pass = _gate.enter();
  if (!pass) return;
  asio::co_spawn(_executor, run(std::move(pass).value()), asio::detached);
}

awaitable<void> load_manager::stop() {
  _stopping = true;
  _timer.cancel();
  co_await _gate.close();
}

awaitable<void> load_manager::run(io::gate::pass) {
  while (!_stopping) {
    auto load = co_await measure();
    if (auto reported = co_await _ownership.report_load(std::move(load)); !reported) {
      spdlog::warn("broker {}: reporting its load: {}", _ownership.self().id, reported.error());
    }
    co_await elect();
    if (_leader && _settings.shedding_enabled && steady::now() >= _next_shedding) {
      _next_shedding = steady::now() + _settings.shedding_interval;
      co_await shed();
    }
    if (!_stopping) co_await _timer.wait_for(_settings.report_interval);
  }
}

awaitable<json> load_manager::measure() {
  const auto stats = co_await _topics.all_stats();
  json bundles = json::object();
  double in = 0, out = 0;
  for (const auto& [name, topic] : stats) {
    auto parsed = wire::topic_name::parse(name);
    if (!parsed) continue;
    const auto bundle = _ownership.owned_bundle_of(parsed.value());
    if (!bundle) continue;
    auto& entry = bundles[*bundle];
    if (entry.is_null()) entry = json::object();  // value() throws on null
    entry["msgRateIn"] = entry.value("msgRateIn", 0.0) + topic.msg_rate_in;
    entry["msgRateOut"] = entry.value("msgRateOut", 0.0) + topic.msg_rate_out;
    entry["topics"] = entry.value("topics", 0) + 1;
    in += topic.msg_rate_in;
    out += topic.msg_rate_out;
  }
  json names = json::array();
  for (const auto& key : _ownership.owned_bundles()) {
    names.push_back(key);
    if (!bundles.contains(key)) bundles[key] = json{{"msgRateIn", 0.0}, {"msgRateOut", 0.0}, {"topics", 0}};
  }
  const auto now = steady::now();
  const double cpu_seconds = process_cpu_seconds();
  double usage = 0;
  if (_last_cpu_seconds >= 0 && cpu_seconds >= 0 && now > _last_measure) {
    usage = 100 * (cpu_seconds - _last_cpu_seconds) / std::chrono::duration<double>(now - _last_measure).count();
  }
  _last_cpu_seconds = cpu_seconds;
  _last_measure = now;
  co_return json{{"msgRateIn", in},
                 {"msgRateOut", out},
                 {"cpu", {{"usage", usage}, {"limit", 100.0 * ::sysconf(_SC_NPROCESSORS_ONLN)}}},
                 {"bundles", names},
                 {"lastStats", bundles}};
}

awaitable<void> load_manager::elect() {
  const auto& self = _ownership.self();
  auto node = co_await _store.get(std::string(leader_path));
  if (!node) {
    _leader = false;
    co_return;
  }
  if (!node.value()) {
    const auto session = _ownership.session();
    if (!session) {
      _leader = false;
      co_return;
    }
    const json data{{"brokerId", self.id}, {"serviceUrl", self.http_url.empty() ? self.http_url_tls : self.http_url}};
    auto created = co_await _store.put(std::string(leader_path), data.dump(), -1, {.ephemeral = *session});
    if (created) spdlog::info("broker {} is the cluster's leader", self.id);
    _leader = created.has_value();
    co_return;
  }
  const auto data = json::parse(node.value()->value, nullptr, false);
  _leader = data.is_object() && data.value("brokerId", "") == self.id;
}

awaitable<void> load_manager::shed() {
  auto brokers = co_await _ownership.registered_brokers();
  if (!brokers || brokers.value().size() < 2) co_return;
  const double h = _settings.history_percentage;
  double total = 0;
  std::map<std::string, double> smoothed;
  for (const auto& b : brokers.value()) {
    const double now = message_rate(b.load);
    const auto previous = _smoothed.find(b.id);
    smoothed[b.id] = previous == _smoothed.end() ? now : h * previous->second + (1 - h) * now;
    total += smoothed[b.id];
  }
  _smoothed = smoothed;  // brokers that left are forgotten
  const double mean = total / static_cast<double>(brokers.value().size());
  const auto now = steady::now();
  std::erase_if(_moved, [&](const auto& entry) { return now - entry.second > _settings.grace_period; });

  for (const auto& b : brokers.value()) {
    const double excess = smoothed[b.id] - mean;
    spdlog::debug("load shedding: broker {} at {:.0f} msg/s (smoothed), the mean is {:.0f}", b.id, smoothed[b.id],
                  mean);
    if (smoothed[b.id] <= mean * (1 + _settings.threshold_percentage / 100) || excess < min_excess_rate) continue;
    const auto& stats = b.load.contains("lastStats") ? b.load["lastStats"] : json::object();
    if (!stats.is_object() || stats.size() < 2) continue;
    std::vector<std::pair<double, std::string>> candidates;
    for (const auto& [key, bundle] : stats.items()) {
      const double rate = message_rate(bundle);
      if (rate > 0 && rate <= excess && !_moved.count(key)) candidates.emplace_back(rate, key);
    }
    if (candidates.empty()) continue;
    const auto [rate, key] = *std::max_element(candidates.begin(), candidates.end());
    const auto slash = key.rfind('/');
    spdlog::info("load shedding: unloading bundle {} ({:.0f} msg/s) off broker {} ({:.0f} msg/s, the mean is {:.0f})",
                 key, rate, b.id, smoothed[b.id], mean);
    _moved[key] = now;
    if (auto unloaded = co_await _unload(key.substr(0, slash), key.substr(slash + 1)); !unloaded) {
      spdlog::warn("load shedding: unloading {}: {}", key, unloaded.error());
    }
  }
}

}  // namespace magnetar::broker::cluster
