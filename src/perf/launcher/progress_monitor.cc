#include "perf/launcher/progress_monitor.h"

#include <fmt/format.h>

#include <algorithm>
#include <charconv>
#include <fstream>

namespace magnetar::perf {

namespace fs = std::filesystem;

namespace {

std::string or_dash(const std::optional<double>& value, std::string_view format) {
  return value ? fmt::format(fmt::runtime(format), *value) : "-";
}

std::vector<std::string_view> split(std::string_view line) {
  std::vector<std::string_view> out;
  for (;;) {
    const auto comma = line.find(',');
    out.push_back(line.substr(0, comma));
    if (comma == std::string_view::npos) return out;
    line.remove_prefix(comma + 1);
  }
}

std::optional<double> number(std::string_view field) {
  double value = 0;
  const auto [end, ec] = std::from_chars(field.data(), field.data() + field.size(), value);
  if (ec != std::errc() || end != field.data() + field.size()) return std::nullopt;
  return value;
}

std::optional<double> column(const std::map<std::string, double>& row, const char* name) {
  const auto found = row.find(name);
  return found == row.end() ? std::nullopt : std::optional(found->second);
}

std::optional<double> mean_of(const std::vector<std::map<std::string, double>>& rows, const char* name) {
  if (rows.empty()) return std::nullopt;
  double sum = 0;
  for (const auto& row : rows) sum += column(row, name).value_or(0);
  return sum / static_cast<double>(rows.size());
}

std::optional<double> max_of(std::optional<double> a, std::optional<double> b) {
  if (!a) return b;
  if (!b) return a;
  return std::max(*a, *b);
}

}  // namespace

std::string format_progress_line(const progress_figures& f) {
  std::string remote;
  if (const auto& r = f.remote) {
    const auto count = [](const std::optional<std::int64_t>& v) { return v ? fmt::format("{}", *v) : "-"; };
    remote = fmt::format(
        " --- remote received: {} msg/s --- remote backlog: {} --- replication backlog: {} --- remote end-to-end "
        "p50: {} ms p99: {} ms",
        or_dash(r->received_per_second, "{:.1f}"), count(r->backlog), count(r->replication_backlog),
        or_dash(r->end_to_end_p50_millis, "{:.3f}"), or_dash(r->end_to_end_p99_millis, "{:.3f}"));
  }
  return fmt::format(
      "[{:>5.0f} s] produced: {} msg/s --- received: {} msg/s --- backlog: {} --- publish p50: {} ms p99: {} ms "
      "--- end-to-end p50: {} ms p99: {} ms{}",
      f.elapsed_seconds, or_dash(f.produced_per_second, "{:.1f}"), or_dash(f.received_per_second, "{:.1f}"),
      f.backlog ? fmt::format("{}", *f.backlog) : "-", or_dash(f.publish_p50_millis, "{:.3f}"),
      or_dash(f.publish_p99_millis, "{:.3f}"), or_dash(f.end_to_end_p50_millis, "{:.3f}"),
      or_dash(f.end_to_end_p99_millis, "{:.3f}"), remote);
}

std::vector<std::map<std::string, double>> csv_tail::new_rows() {
  std::vector<std::map<std::string, double>> rows;
  std::ifstream in(_file, std::ios::binary);
  if (!in) return rows;
  in.seekg(static_cast<std::streamoff>(_offset));
  std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  std::string_view rest = text;
  for (;;) {
    const auto end = rest.find('\n');
    if (end == std::string_view::npos) break;  // a line still being written
    const auto line = rest.substr(0, end);
    rest.remove_prefix(end + 1);
    _offset += end + 1;
    if (line.empty()) continue;
    const auto fields = split(line);
    if (_columns.empty()) {
      _columns.assign(fields.begin(), fields.end());
      continue;
    }
    std::map<std::string, double> row;
    for (std::size_t i = 0; i < fields.size() && i < _columns.size(); ++i) {
      if (auto value = number(fields[i])) row[_columns[i]] = *value;
    }
    rows.push_back(std::move(row));
  }
  return rows;
}

progress_figures figures_from_timelines(
    const std::vector<std::map<std::string, double>>& gateway_rows,
    const std::vector<std::vector<std::map<std::string, double>>>& application_rows) {
  progress_figures f;
  f.produced_per_second = mean_of(gateway_rows, "sent");
  if (!gateway_rows.empty()) {
    f.publish_p50_millis = column(gateway_rows.back(), "p50Millis");
    f.publish_p99_millis = column(gateway_rows.back(), "p99Millis");
  }
  for (const auto& rows : application_rows) {
    if (auto rate = mean_of(rows, "received")) f.received_per_second = f.received_per_second.value_or(0) + *rate;
    if (rows.empty()) continue;
    f.end_to_end_p50_millis = max_of(f.end_to_end_p50_millis, column(rows.back(), "p50Millis"));
    f.end_to_end_p99_millis = max_of(f.end_to_end_p99_millis, column(rows.back(), "p99Millis"));
  }
  return f;
}

progress_monitor::progress_monitor(progress_monitor_options options)
    : _options(std::move(options)), _gateways(_options.run_dir / "gateways" / "gateways-timeline.csv") {}

progress_monitor::~progress_monitor() { stop(); }

void progress_monitor::start() {
  _thread = std::thread([this] { run(); });
}

void progress_monitor::stop() {
  {
    std::lock_guard lock(_mutex);
    _stopping = true;
  }
  _wake.notify_all();
  if (_thread.joinable()) _thread.join();
}

namespace {

// The new rows of each application's timeline under `folder`. Applications appear once
// their process has started: look for new folders each time.
std::vector<std::vector<std::map<std::string, double>>> new_application_rows(
    const fs::path& folder, std::map<std::string, std::unique_ptr<csv_tail>>& tails) {
  std::error_code ec;
  for (const auto& entry : fs::directory_iterator(folder, ec)) {
    const auto name = entry.path().filename().string();
    if (entry.is_directory() && !tails.contains(name)) {
      tails.emplace(name, std::make_unique<csv_tail>(entry.path() / "application-timeline.csv"));
    }
  }
  std::vector<std::vector<std::map<std::string, double>>> rows;
  for (auto& [name, tail] : tails) rows.push_back(tail->new_rows());
  return rows;
}

}  // namespace

void progress_monitor::print_line() {
  auto figures = figures_from_timelines(_gateways.new_rows(),
                                        new_application_rows(_options.run_dir / "applications", _applications));
  figures.elapsed_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - _options.started).count();
  if (_options.backlog) figures.backlog = _options.backlog();
  if (_options.remote) {
    const auto remote = figures_from_timelines(
        {}, new_application_rows(_options.run_dir / "remote-applications", _remote_applications));
    figures.remote = remote_progress_figures{.received_per_second = remote.received_per_second,
                                             .end_to_end_p50_millis = remote.end_to_end_p50_millis,
                                             .end_to_end_p99_millis = remote.end_to_end_p99_millis};
    if (_options.remote_backlog) figures.remote->backlog = _options.remote_backlog();
    if (_options.replication_backlog) figures.remote->replication_backlog = _options.replication_backlog();
  }
  if (_options.print) _options.print(format_progress_line(figures));
}

void progress_monitor::run() {
  auto next = std::chrono::steady_clock::now() + _options.interval;
  std::unique_lock lock(_mutex);
  while (!_wake.wait_until(lock, next, [this] { return _stopping; })) {
    lock.unlock();
    print_line();
    lock.lock();
    next += _options.interval;
  }
}

}  // namespace magnetar::perf
