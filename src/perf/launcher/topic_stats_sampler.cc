#include "perf/launcher/topic_stats_sampler.h"

#include "base/errc.h"
#include "http/client.h"
#include "perf/cluster/network_namespace.h"
#include "perf/launcher/admin_requests.h"

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <cerrno>
#include <cstring>

namespace magnetar::perf {

namespace {

std::int64_t integer_field(const nlohmann::json& object, const char* key) {
  const auto found = object.find(key);
  if (found == object.end() || !found->is_number()) return 0;
  return found->is_number_float() ? static_cast<std::int64_t>(found->get<double>()) : found->get<std::int64_t>();
}

}  // namespace

result<std::vector<topic_stats_row>> parse_topic_stats(std::string_view topic, std::string_view json_body) {
  nlohmann::json stats = nlohmann::json::parse(json_body, nullptr, /*allow_exceptions=*/false);
  if (!stats.is_object()) {
    return fail(base::errc::invalid_argument, fmt::format("stats of {}: not a JSON object", topic));
  }
  const std::int64_t in = integer_field(stats, "msgInCounter");
  const std::int64_t topic_out = integer_field(stats, "msgOutCounter");
  std::vector<topic_stats_row> rows;
  const auto subscriptions = stats.find("subscriptions");
  if (subscriptions != stats.end() && subscriptions->is_object()) {
    for (const auto& [name, subscription] : subscriptions->items()) {
      if (!subscription.is_object()) continue;
      // Per subscription, msgOutCounter is what that subscription's consumers received.
      rows.push_back({.topic = std::string(topic),
                      .subscription = name,
                      .msg_backlog = integer_field(subscription, "msgBacklog"),
                      .msg_in_counter = in,
                      .msg_out_counter = integer_field(subscription, "msgOutCounter")});
    }
  }
  if (rows.empty()) rows.push_back({.topic = std::string(topic), .msg_in_counter = in, .msg_out_counter = topic_out});
  return rows;
}

std::string topic_stats_csv_line(std::int64_t epoch_millis, const topic_stats_row& row) {
  return fmt::format("{},{},{},{},{},{}", epoch_millis, row.topic, row.subscription, row.msg_backlog,
                     row.msg_in_counter, row.msg_out_counter);
}

topic_stats_sampler::topic_stats_sampler(topic_stats_sampler_options options) : _options(std::move(options)) {}

topic_stats_sampler::~topic_stats_sampler() {
  stop();
  if (_csv != nullptr) std::fclose(_csv);
  if (_metrics_csv != nullptr) std::fclose(_metrics_csv);
  if (_bookie_csv != nullptr) std::fclose(_bookie_csv);
  if (_replication_csv != nullptr) std::fclose(_replication_csv);
}

result<void> topic_stats_sampler::start() {
  for (const auto& topic : _options.topics) {
    MAGNETAR_TRY(path, topic_stats_path(topic));
    _paths.push_back(std::move(path));
  }
  const bool existed = std::filesystem::exists(_options.csv_file);
  _csv = std::fopen(_options.csv_file.c_str(), "ae");
  if (_csv == nullptr) {
    return fail(base::errc::io_error, fmt::format("open {}: {}", _options.csv_file.string(), std::strerror(errno)));
  }
  if (!existed) {
    fmt::print(_csv, "{}\n", csv_header);
    std::fflush(_csv);
  }
  // Created with its header now, so that a run whose topics never replicated still shows
  // that it looked.
  if (!_options.replication_csv_file.empty()) {
    _replication_csv = std::fopen(_options.replication_csv_file.c_str(), "ae");
    if (_replication_csv == nullptr) {
      return fail(base::errc::io_error,
                  fmt::format("open {}: {}", _options.replication_csv_file.string(), std::strerror(errno)));
    }
    fmt::print(_replication_csv, "{}\n", replication_stats_csv_header);
    std::fflush(_replication_csv);
  }
  _thread = std::thread([this] { run(); });
  return success();
}

void topic_stats_sampler::stop() {
  {
    std::lock_guard lock(_mutex);
    _stopping = true;
  }
  _wake.notify_all();
  if (_thread.joinable()) _thread.join();
}

std::optional<std::int64_t> topic_stats_sampler::latest_backlog() const {
  const auto value = _latest_backlog.load();
  return value < 0 ? std::nullopt : std::optional(value);
}

std::optional<std::int64_t> topic_stats_sampler::latest_replication_backlog() const {
  const auto value = _latest_replication_backlog.load();
  return value < 0 ? std::nullopt : std::optional(value);
}

void topic_stats_sampler::run() {
  if (!_options.network_namespace.empty()) {
    if (auto entered = enter_network_namespace(_options.network_namespace); !entered) {
      if (_errors.fetch_add(1) == 0 && _options.on_error) _options.on_error(entered.error().message());
      return;
    }
  }
  auto next = std::chrono::steady_clock::now();
  std::unique_lock lock(_mutex);
  while (!_stopping) {
    lock.unlock();
    sample_once();
    lock.lock();
    // Ticks keep their phase; after a slow sample the next one starts at once, without
    // a burst of catch-up samples.
    next = std::max(next + _options.interval, std::chrono::steady_clock::now());
    _wake.wait_until(lock, next, [this] { return _stopping; });
  }
}

void topic_stats_sampler::sample_once() {
  const auto millis =
      std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::system_clock::now().time_since_epoch())
          .count();
  std::string lines;
  std::int64_t backlog = 0;
  bool any = false;
  std::int64_t rows = 0;
  std::string replication_lines;
  std::int64_t replication_backlog = 0;
  bool any_replicator = false;
  for (std::size_t i = 0; i < _paths.size(); ++i) {
    const auto& topic = _options.topics[i];
    auto reply =
        http::call(_options.admin, "GET", _paths[i], {}, {.timeout = _options.request_timeout, .max_redirects = 3});
    std::optional<std::string> failure;
    if (!reply) {
      failure = reply.error().message();
    } else if (reply.value().status == 404) {
      continue;
    } else if (reply.value().status != 200) {
      failure = fmt::format("GET {}: HTTP {}: {}", _paths[i], reply.value().status, reply.value().body);
    } else if (auto parsed = parse_topic_stats(topic, reply.value().body); !parsed) {
      failure = parsed.error().message();
    } else {
      any = true;
      for (const auto& row : parsed.value()) {
        backlog += row.msg_backlog;
        lines += topic_stats_csv_line(millis, row);
        lines += '\n';
        ++rows;
      }
      if (!_options.replication_csv_file.empty()) {
        auto replicated = parse_replication_stats(topic, reply.value().body);
        for (const auto& row : replicated ? replicated.value() : std::vector<replication_stats_row>{}) {
          any_replicator = true;
          replication_backlog += row.replication_backlog;
          replication_lines += replication_stats_csv_line(millis, row);
          replication_lines += '\n';
        }
      }
    }
    if (failure && _errors.fetch_add(1) == 0 && _options.on_error) {
      _options.on_error(fmt::format("topic stats: {} (further failures are counted, not shown)", *failure));
    }
  }
  if (!lines.empty()) {
    std::fputs(lines.c_str(), _csv);
    std::fflush(_csv);
  }
  if (any) _latest_backlog.store(backlog);
  if (any_replicator) _latest_replication_backlog.store(replication_backlog);
  if (!replication_lines.empty()) {
    replication_lines.pop_back();  // append_metrics_line ends the text with its own newline
    (void)append_metrics_line(_replication_csv, _options.replication_csv_file, replication_stats_csv_header,
                              replication_lines);
  }
  _rows.fetch_add(rows);
  if (!_options.metrics_csv_file.empty() || !_options.bookie_metrics_csv_file.empty()) sample_metrics(millis);
  _samples.fetch_add(1);
}

void topic_stats_sampler::sample_metrics(std::int64_t epoch_millis) {
  const auto metrics_of = [&](const http::url& url) -> std::optional<std::string> {
    auto reply = http::call(url, "GET", "/metrics", {}, {.timeout = _options.request_timeout});
    // The topic stats report an unreachable broker; a node killed by a fault is expected.
    if (!reply || reply.value().status != 200) return std::nullopt;
    return std::move(reply).value().body;
  };
  auto brokers = _options.brokers;
  if (brokers.empty()) brokers.push_back({.node = "broker", .url = _options.admin});
  for (const auto& broker : brokers) {
    if (_options.metrics_csv_file.empty()) break;
    const auto text = metrics_of(broker.url);
    const auto sample = text ? parse_broker_metrics(*text) : std::nullopt;
    if (sample && append_metrics_line(_metrics_csv, _options.metrics_csv_file, broker_metrics_csv_header,
                                      broker_metrics_csv_line(epoch_millis, broker.node, *sample))) {
      _metrics_lines.fetch_add(1);
    }
  }
  for (const auto& bookie : _options.bookies) {
    if (_options.bookie_metrics_csv_file.empty()) break;
    const auto text = metrics_of(bookie.url);
    const auto sample = text ? parse_bookie_metrics(*text) : std::nullopt;
    if (sample && append_metrics_line(_bookie_csv, _options.bookie_metrics_csv_file, bookie_metrics_csv_header,
                                      bookie_metrics_csv_line(epoch_millis, bookie.node, *sample))) {
      _metrics_lines.fetch_add(1);
    }
  }
}

bool topic_stats_sampler::append_metrics_line(std::FILE*& file, std::filesystem::path& path, std::string_view header,
                                              const std::string& line) {
  if (file == nullptr) {
    const bool existed = std::filesystem::exists(path);
    file = std::fopen(path.c_str(), "ae");
    if (file == nullptr) {
      if (_errors.fetch_add(1) == 0 && _options.on_error) {
        _options.on_error(fmt::format("open {}: {}", path.string(), std::strerror(errno)));
      }
      path.clear();
      return false;
    }
    if (!existed) fmt::print(file, "{}\n", header);
  }
  fmt::print(file, "{}\n", line);
  std::fflush(file);
  return true;
}

}  // namespace magnetar::perf
