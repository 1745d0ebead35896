#include "perf/report/run_data.h"

#include <fmt/format.h>
#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <cctype>
#include <limits>
#include <set>

namespace magnetar::perf::report {
namespace fs = std::filesystem;
namespace {

// "iot-application-10" after "iot-application-9": the digits at the end compare as numbers.
bool natural_less(const std::string& a, const std::string& b) {
  auto split = [](const std::string& s) {
    std::size_t i = s.size();
    while (i > 0 && std::isdigit(static_cast<unsigned char>(s[i - 1]))) --i;
    return std::pair{s.substr(0, i), s.substr(i)};
  };
  auto [prefix_a, digits_a] = split(a);
  auto [prefix_b, digits_b] = split(b);
  if (prefix_a != prefix_b || digits_a.empty() || digits_b.empty()) return a < b;
  if (digits_a.size() != digits_b.size()) return digits_a.size() < digits_b.size();
  return digits_a < digits_b;
}

// The node at a dotted path of the resolved configuration, when it is there.
std::optional<YAML::Node> yaml_find(const YAML::Node& node, std::string_view path) {
  if (!node.IsMap()) return std::nullopt;
  auto dot = path.find('.');
  std::string key(path.substr(0, dot));
  const YAML::Node child = node[key];
  if (!child.IsDefined() || child.IsNull()) return std::nullopt;
  if (dot == std::string_view::npos) return child;
  return yaml_find(child, path.substr(dot + 1));
}

// A scalar at a dotted path of the resolved configuration, as text.
std::optional<std::string> yaml_scalar(const YAML::Node& node, std::string_view path) {
  auto found = yaml_find(node, path);
  if (!found || !found->IsScalar()) return std::nullopt;
  return found->Scalar();
}

class loader {
 public:
  explicit loader(run_data& data) : _data(data) {}

  // The file's text, or nullopt with the file recorded as missing or unreadable.
  std::optional<std::string> text(const std::string& relative) {
    auto content = read_text(_data.dir / relative);
    if (content) return std::move(content).value();
    if (content.error() == base::errc::not_found) {
      _data.missing.push_back(relative);
    } else {
      _data.unreadable.push_back(fmt::format("{}: {}", relative, content.error().detail()));
    }
    return std::nullopt;
  }

  std::optional<nlohmann::json> json(const std::string& relative) {
    auto content = text(relative);
    if (!content) return std::nullopt;
    auto parsed = parse_json(*content, relative);
    if (!parsed || !parsed.value().is_object()) {
      _data.unreadable.push_back(fmt::format("{}: malformed JSON", relative));
      return std::nullopt;
    }
    return std::move(parsed).value();
  }

  std::vector<percentile_point> hgrm(const std::string& relative) {
    auto content = text(relative);
    if (!content) return {};
    auto points = parse_hgrm(*content);
    if (!points) {
      _data.unreadable.push_back(fmt::format("{}: {}", relative, points.error().detail()));
      return {};
    }
    return std::move(points).value();
  }

  std::vector<timeline_point> timeline(const std::string& relative, std::string_view count_column) {
    auto content = text(relative);
    if (!content) return {};
    auto table = parse_csv(*content);
    if (!table.column("epochMillis") || !table.column(count_column)) {
      _data.unreadable.push_back(fmt::format("{}: no epochMillis or {} column", relative, count_column));
      return {};
    }
    std::vector<timeline_point> points;
    for (const auto& row : table.rows) {
      auto millis = table.number(row, "epochMillis");
      if (!millis) continue;
      points.push_back({static_cast<std::int64_t>(*millis), table.number(row, count_column).value_or(0),
                        table.number(row, "p50Millis").value_or(0), table.number(row, "p99Millis").value_or(0),
                        table.number(row, "maxMillis").value_or(0)});
    }
    return points;
  }

  // Whether the folder exists; a missing one is recorded once rather than file by file.
  bool folder(const std::string& relative) {
    std::error_code ec;
    if (fs::is_directory(_data.dir / relative, ec)) return true;
    _data.missing.push_back(relative + "/");
    return false;
  }

  void expect(const std::string& relative) {
    std::error_code ec;
    if (!fs::exists(_data.dir / relative, ec)) _data.missing.push_back(relative);
  }

 private:
  run_data& _data;
};

void load_settings(run_data& data, const YAML::Node& config) {
  auto get = [&](std::string_view path) { return yaml_scalar(config, path); };
  auto iot = [&](std::string_view path) { return get(fmt::format("workloads.iotTelemetry.{}", path)); };
  auto add = [&](std::string name, std::optional<std::string> value, std::string_view unit = "") {
    if (value) data.settings.push_back({std::move(name), *value + std::string(unit)});
  };
  auto joined = [](std::optional<std::string> a, std::string_view between, std::optional<std::string> b,
                   std::string_view after = "") -> std::optional<std::string> {
    if (!a && !b) return std::nullopt;
    return fmt::format("{}{}{}{}", a.value_or("?"), between, b.value_or("?"), after);
  };
  add("Brokers × bookies", joined(get("cluster.brokers.replicas"), " × ", get("cluster.bookies.replicas")));
  add("Gateways", iot("gateways.count"));
  add("Topics", iot("topics.count"));
  add("Devices", iot("devices.count"));
  add("Applications × pods (Key_Shared)",
      joined(iot("applications.count"), " × ", iot("applications.podsPerApplication")));
  if (auto rate = iot("rate")) add("Rate", *rate == "0" ? "as fast as possible" : *rate + " msg/s");
  add("Payload", iot("payload.size"), " bytes");
  add("Batching", iot("gateways.producer.batchingEnabled"));
  add("Max outstanding", iot("gateways.producer.maxOutstanding"));
  auto warmup_seconds = iot("warmup.seconds");
  auto warmup_messages = iot("warmup.messages");
  if (warmup_seconds && *warmup_seconds != "0") {
    add("Warmup", fmt::format("{} s × {} round(s)", *warmup_seconds, iot("warmup.rounds").value_or("1")));
  } else if (warmup_messages) {
    add("Warmup", fmt::format("{} messages × {} round(s)", *warmup_messages, iot("warmup.rounds").value_or("1")));
  }
  auto measured_seconds = iot("measurement.seconds");
  auto measured_messages = iot("measurement.messages");
  if (measured_messages && *measured_messages != "0") {
    add("Measurement", *measured_messages + " messages");
  } else if (measured_seconds) {
    add("Measurement", *measured_seconds + " s");
  }
  add("Timeout", iot("timeoutSeconds"), " s");
  // Late applications (issue 7): the join times, a list that a scalar lookup does not read.
  if (auto join = yaml_find(config, "workloads.iotTelemetry.applications.joinSeconds"); join && join->IsSequence()) {
    std::string times;
    bool late = false;
    for (const auto& value : *join) {
      if (!value.IsScalar()) continue;
      times += (times.empty() ? "" : ", ") + value.Scalar();
      late = late || value.Scalar() != "0";
    }
    if (late) {
      add("Applications join at", times + " s into the measurement");
      add("Caught up within", iot("applications.caughtUpLatencyMillis").value_or("1000"), " ms");
    }
  }
  auto restart_interval = iot("behaviors.podRestarts.intervalSeconds");
  if (restart_interval && *restart_interval != "0") {
    add("Pod restarts", fmt::format("{} of the pods every {} s", iot("behaviors.podRestarts.fraction").value_or("?"),
                                    *restart_interval));
  }
}

// What run-info.json says of how the run ran, ahead of the scenario's settings: a
// comparison shows them too (the workloads' priority moves the figures as much as a
// setting). An older run's file lacks workloadNice: no row.
void load_run_settings(run_data& data) {
  if (!data.run_info) return;
  const auto& info = *data.run_info;
  // A cluster the launcher started has its own row, from cluster.json (run_sections.cc).
  const bool launched_cluster = info.value("cluster", false);
  if (auto it = info.find("standalone"); it != info.end() && it->is_boolean() && !launched_cluster) {
    data.settings.push_back(
        {"Cluster", it->get<bool>() ? "a standalone the launcher started" : "given by --service-url"});
  }
  if (auto it = info.find("workloadNice"); it != info.end() && it->is_number_integer()) {
    const int steps = it->get<int>();
    data.settings.push_back({"Workload priority", steps > 0 ? fmt::format("{} nice steps below the launcher", steps)
                                                            : "same as the launcher"});
  }
}

using subscription_set = std::set<std::string, decltype(&natural_less)>;

void load_config(run_data& data, loader& files, subscription_set& subscriptions,
                 subscription_set& remote_subscriptions) {
  auto content = files.text("resolved-config.yaml");
  if (!content) return;
  YAML::Node config;
  try {
    config = YAML::Load(*content);
  } catch (const YAML::Exception& e) {
    data.unreadable.push_back(fmt::format("resolved-config.yaml: {}", e.what()));
    return;
  }
  try {
    load_settings(data, config);
    auto count = yaml_scalar(config, "workloads.iotTelemetry.applications.count");
    auto prefix =
        yaml_scalar(config, "workloads.iotTelemetry.applications.subscriptionPrefix").value_or("iot-application-");
    int applications = count ? std::atoi(count->c_str()) : 0;
    // A bad count in a hand-edited file must not make the report list a million names.
    for (int a = 0; a < std::min(applications, 1000); ++a) subscriptions.insert(prefix + std::to_string(a));
    // A remote cluster's applications read the same subscriptions, as many as it says
    // (the local count when it does not).
    if (auto remote = yaml_find(config, "cluster.remote")) {
      data.remote.emplace();
      auto remote_count = yaml_scalar(config, "cluster.remote.applications.count");
      const int count = remote_count ? std::atoi(remote_count->c_str()) : applications;
      for (int a = 0; a < std::min(count, 1000); ++a) remote_subscriptions.insert(prefix + std::to_string(a));
    }
  } catch (const YAML::Exception& e) {
    data.unreadable.push_back(fmt::format("resolved-config.yaml: {}", e.what()));
  }
}

void load_topic_stats(run_data& data, loader& files, const std::string& file,
                      std::map<std::string, std::vector<subscription_sample>>& backlog) {
  auto content = files.text(file);
  if (!content) return;
  auto table = parse_csv(*content);
  auto subscription_column = table.column("subscription");
  if (!table.column("epochMillis") || !subscription_column || !table.column("msgBacklog")) {
    data.unreadable.push_back(fmt::format("{}: no epochMillis, subscription or msgBacklog column", file));
    return;
  }
  std::map<std::string, std::map<std::int64_t, subscription_sample>> sums;
  for (const auto& row : table.rows) {
    auto millis = table.number(row, "epochMillis");
    if (!millis) continue;
    auto& sample = sums[row[*subscription_column]][static_cast<std::int64_t>(*millis)];
    sample.epoch_millis = static_cast<std::int64_t>(*millis);
    sample.backlog += table.number(row, "msgBacklog").value_or(0);
    sample.in_counter += table.number(row, "msgInCounter").value_or(0);
    sample.out_counter += table.number(row, "msgOutCounter").value_or(0);
  }
  for (auto& [subscription, samples] : sums) {
    auto& series = backlog[subscription];
    for (auto& [millis, sample] : samples) series.push_back(sample);
  }
}

// broker-metrics.csv is optional: a run without it is complete, so only a file that exists
// and cannot be read is reported.
void load_broker_metrics(run_data& data) {
  auto content = read_text(data.dir / "broker-metrics.csv");
  if (!content) {
    if (content.error() != base::errc::not_found) {
      data.unreadable.push_back(fmt::format("broker-metrics.csv: {}", content.error().detail()));
    }
    return;
  }
  auto table = parse_csv(content.value());
  for (const char* column : {"epochMillis", "cacheHits", "cacheMisses", "cacheInserts", "cacheEvictions"}) {
    if (!table.column(column)) {
      data.unreadable.push_back(fmt::format("broker-metrics.csv: no {} column", column));
      return;
    }
  }
  data.has_broker_metrics = true;
  // One sample writes a line per broker, all with its time: they add up by time.
  std::map<std::int64_t, cache_sample> by_time;
  for (const auto& row : table.rows) {
    auto millis = table.number(row, "epochMillis");
    if (!millis) continue;
    const auto at = static_cast<std::int64_t>(*millis);
    auto& sum = by_time[at];
    sum.epoch_millis = at;
    sum.hits += table.number(row, "cacheHits").value_or(0);
    sum.misses += table.number(row, "cacheMisses").value_or(0);
    sum.inserts += table.number(row, "cacheInserts").value_or(0);
    sum.evictions += table.number(row, "cacheEvictions").value_or(0);
    sum.bytes += table.number(row, "cacheBytes").value_or(0);
    if (const auto node = table.text(row, "node"); !node.empty()) {
      if (const auto rate = table.number(row, "msgRateIn")) data.broker_publish_rate[node].emplace_back(at, *rate);
    }
  }
  for (auto& [at, sample] : by_time) data.broker_cache.push_back(sample);
}

// bookie-metrics.csv is optional too (a standalone has none).
void load_bookie_metrics(run_data& data) {
  auto content = read_text(data.dir / "bookie-metrics.csv");
  if (!content) {
    if (content.error() != base::errc::not_found) {
      data.unreadable.push_back(fmt::format("bookie-metrics.csv: {}", content.error().detail()));
    }
    return;
  }
  auto table = parse_csv(content.value());
  struct previous {
    double syncs = 0;
    double millis = 0;
  };
  std::map<std::string, previous> last;
  for (const auto& row : table.rows) {
    const auto at = table.number(row, "epochMillis");
    const auto node = table.text(row, "node");
    const auto syncs = table.number(row, "journalSyncCount");
    const auto millis = table.number(row, "journalSyncMillis");
    if (!at || node.empty() || !syncs || !millis) continue;
    const auto before = last.find(node);
    if (before != last.end() && *syncs > before->second.syncs) {
      data.bookie_journal_sync_millis[node].emplace_back(
          static_cast<std::int64_t>(*at), (*millis - before->second.millis) / (*syncs - before->second.syncs));
    }
    last[node] = {*syncs, *millis};
  }
}

// replication-stats.csv (replication_stats.h's columns), summed per sample time.
void load_replication_stats(run_data& data, remote_data& remote) {
  auto content = read_text(data.dir / "replication-stats.csv");
  if (!content) {
    if (content.error() != base::errc::not_found) {
      data.unreadable.push_back(fmt::format("replication-stats.csv: {}", content.error().detail()));
    } else {
      data.missing.push_back("replication-stats.csv");
    }
    return;
  }
  auto table = parse_csv(content.value());
  if (!table.column("epochMillis") || !table.column("replicationBacklog")) {
    data.unreadable.push_back("replication-stats.csv: no epochMillis or replicationBacklog column");
    return;
  }
  remote.has_replication_stats = true;
  std::map<std::int64_t, replication_sample> by_time;
  for (const auto& row : table.rows) {
    const auto millis = table.number(row, "epochMillis");
    if (!millis) continue;
    const auto at = static_cast<std::int64_t>(*millis);
    auto& sample = by_time[at];
    sample.epoch_millis = at;
    sample.backlog += table.number(row, "replicationBacklog").value_or(0);
    sample.max_delay_seconds =
        std::max(sample.max_delay_seconds, table.number(row, "replicationDelayInSeconds").value_or(0));
    sample.rate_out += table.number(row, "msgRateOut").value_or(0);
    ++sample.replicators;
    if (table.text(row, "connected") != "true") ++sample.disconnected;
  }
  for (auto& [at, sample] : by_time) remote.replication.push_back(sample);
}

// `folder`: "applications", or "remote-applications" for a remote cluster's.
application_data load_application(loader& files, const fs::path& dir, const std::string& folder,
                                  const std::string& subscription) {
  application_data app;
  app.subscription = subscription;
  std::string base = folder + "/" + subscription + "/";
  if (!files.folder(folder + "/" + subscription)) return app;
  app.summary = files.json(base + "application-summary.json");
  app.latency = files.hgrm(base + "application-latency.hgrm");
  app.timeline = files.timeline(base + "application-timeline.csv", "received");
  files.expect(base + "application-state.bin");
  if (auto violations = read_text(dir / (base + "ordering-violations.txt"))) {
    app.has_violations_file = true;
    const auto& text = violations.value();
    app.violation_samples = static_cast<std::size_t>(std::count(text.begin(), text.end(), '\n'));
    if (!text.empty() && text.back() != '\n') ++app.violation_samples;
  }
  return app;
}

// The remote side, when the configuration has a remote cluster or the run left remote
// applications: those the configuration asks for and those with a folder.
void load_remote(run_data& data, loader& files, subscription_set& subscriptions) {
  std::error_code ec;
  for (fs::directory_iterator it(data.dir / "remote-applications", ec), end; !ec && it != end; it.increment(ec)) {
    if (it->is_directory(ec)) subscriptions.insert(it->path().filename().string());
  }
  if (!data.remote && subscriptions.empty()) return;
  if (!data.remote) data.remote.emplace();
  load_topic_stats(data, files, "remote-topic-stats.csv", data.remote->backlog);
  load_replication_stats(data, *data.remote);
  for (const auto& subscription : subscriptions) {
    data.remote->applications.push_back(load_application(files, data.dir, "remote-applications", subscription));
  }
}

}  // namespace

std::int64_t run_data::start_millis() const {
  for (const auto& e : events) {
    if (e.event == "run-started") return e.epoch_millis;
  }
  std::int64_t earliest = std::numeric_limits<std::int64_t>::max();
  for (const auto& e : events) earliest = std::min(earliest, e.epoch_millis);
  if (gateways.summary) {
    if (auto start = json_number(*gateways.summary, "startEpochMillis"); start && *start > 0) {
      earliest = std::min(earliest, static_cast<std::int64_t>(*start));
    }
  }
  for (const auto& p : gateways.timeline) earliest = std::min(earliest, p.epoch_millis);
  for (const auto& app : applications) {
    for (const auto& p : app.timeline) earliest = std::min(earliest, p.epoch_millis);
  }
  for (const auto& [subscription, samples] : backlog) {
    for (const auto& s : samples) earliest = std::min(earliest, s.epoch_millis);
  }
  return earliest == std::numeric_limits<std::int64_t>::max() ? 0 : earliest;
}

std::optional<bool> run_data::passed() const {
  if (!run_info) return std::nullopt;
  auto it = run_info->find("passed");
  if (it == run_info->end() || !it->is_boolean()) return std::nullopt;
  return it->get<bool>();
}

std::vector<std::string> run_data::failures() const {
  std::vector<std::string> reasons;
  if (!run_info) return reasons;
  auto it = run_info->find("failures");
  if (it == run_info->end() || !it->is_array()) return reasons;
  for (const auto& f : *it) reasons.push_back(f.is_string() ? f.get<std::string>() : f.dump());
  return reasons;
}

std::optional<double> run_data::remote_missing_messages(const std::string& subscription) const {
  if (!run_info) return std::nullopt;
  auto it = run_info->find("remoteMissingMessages");
  if (it == run_info->end()) return std::nullopt;
  return json_number(*it, subscription);
}

std::optional<double> run_data::missing_messages(const std::string& subscription) const {
  if (!run_info) return std::nullopt;
  auto it = run_info->find("missingMessages");
  if (it == run_info->end()) return std::nullopt;
  return json_number(*it, subscription);
}

std::vector<std::string> run_data::existing_files() const {
  std::vector<std::string> files;
  std::error_code ec;
  for (const char* name : {"run-id.txt", "run-info.json", "resolved-config.yaml", "console.log.txt", "events.csv",
                           "topic-stats.csv", "broker-metrics.csv"}) {
    if (fs::is_regular_file(dir / name, ec)) files.emplace_back(name);
  }
  auto add_folder = [&](const fs::path& relative) {
    std::vector<std::string> found;
    for (fs::directory_iterator it(dir / relative, ec), end; !ec && it != end; it.increment(ec)) {
      if (it->is_regular_file(ec)) found.push_back((relative / it->path().filename()).generic_string());
    }
    std::sort(found.begin(), found.end());
    files.insert(files.end(), found.begin(), found.end());
  };
  add_folder("gateways");
  for (const auto& app : applications) add_folder(fs::path("applications") / app.subscription);
  if (remote) {
    for (const char* name : {"remote-topic-stats.csv", "replication-stats.csv"}) {
      if (fs::is_regular_file(dir / name, ec)) files.emplace_back(name);
    }
    for (const auto& app : remote->applications) add_folder(fs::path("remote-applications") / app.subscription);
  }
  add_folder("workloads");
  return files;
}

result<run_data> load_run_data(const fs::path& dir) {
  std::error_code ec;
  if (!fs::is_directory(dir, ec)) {
    return fail(base::errc::not_found, fmt::format("{}: not a run directory", dir.string()));
  }
  run_data data;
  data.dir = dir;
  loader files(data);

  if (auto id = files.text("run-id.txt")) {
    data.run_id = *id;
    while (!data.run_id.empty() && std::isspace(static_cast<unsigned char>(data.run_id.back()))) data.run_id.pop_back();
  }
  data.run_info = files.json("run-info.json");
  if (fs::is_regular_file(dir / "cluster.json", ec)) data.cluster = files.json("cluster.json");
  if (fs::is_regular_file(dir / "network-summary.json", ec)) data.network = files.json("network-summary.json");
  if (data.run_info) {
    if (data.run_id.empty()) data.run_id = json_text(*data.run_info, "runId").value_or("");
    data.name = json_text(*data.run_info, "name").value_or("");
  }
  if (data.name.empty()) {
    auto absolute = fs::absolute(dir, ec).lexically_normal();
    if (!absolute.has_filename()) absolute = absolute.parent_path();
    data.name = absolute.parent_path().filename().string();
  }

  load_run_settings(data);
  subscription_set subscriptions(&natural_less);
  subscription_set remote_subscriptions(&natural_less);
  load_config(data, files, subscriptions, remote_subscriptions);
  if (auto text = files.text("events.csv")) data.events = parse_events(*text);
  load_topic_stats(data, files, "topic-stats.csv", data.backlog);
  load_broker_metrics(data);
  load_bookie_metrics(data);

  if (files.folder("gateways")) {
    data.gateways.summary = files.json("gateways/gateways-summary.json");
    data.gateways.latency = files.hgrm("gateways/gateways-latency.hgrm");
    data.gateways.intended_latency = files.hgrm("gateways/gateways-intended-latency.hgrm");
    data.gateways.timeline = files.timeline("gateways/gateways-timeline.csv", "sent");
    files.expect("gateways/gateways-state.bin");
  }

  // The applications: those with a directory, those the verdict names and those the
  // configuration asks for, so that one that never started is named as missing.
  for (fs::directory_iterator it(dir / "applications", ec), end; !ec && it != end; it.increment(ec)) {
    if (it->is_directory(ec)) subscriptions.insert(it->path().filename().string());
  }
  if (data.run_info) {
    if (auto it = data.run_info->find("missingMessages"); it != data.run_info->end() && it->is_object()) {
      for (const auto& [subscription, value] : it->items()) subscriptions.insert(subscription);
    }
  }
  if (subscriptions.empty()) data.missing.push_back("applications/");
  for (const auto& subscription : subscriptions) {
    data.applications.push_back(load_application(files, dir, "applications", subscription));
  }
  load_remote(data, files, remote_subscriptions);
  return data;
}

}  // namespace magnetar::perf::report
