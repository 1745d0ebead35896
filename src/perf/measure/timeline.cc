#include "perf/measure/timeline.h"

#include "base/assert.h"

#include <fmt/format.h>

#include <cerrno>
#include <cstring>

namespace magnetar::perf {

namespace {

constexpr std::int64_t one_hour_micros = 3'600'000'000;

}  // namespace

std::vector<timeline_column> gateway_timeline_columns() {
  return {{"sent"}, {"sendErrors"}, {"inFlight", timeline_column_kind::gauge}};
}

std::vector<timeline_column> application_timeline_columns() { return {{"received"}, {"duplicates"}, {"violations"}}; }

timeline::timeline(std::vector<timeline_column> columns, bool latency_columns)
    : _columns(std::move(columns)),
      _latency(latency_columns),
      _values(std::make_unique<std::atomic<std::int64_t>[]>(_columns.size())),
      // Without latency columns the histogram is never used: the smallest layout will do.
      _latency_micros(latency_columns ? one_hour_micros : 1) {
  for (std::size_t i = 0; i < _columns.size(); ++i) _values[i].store(0, std::memory_order_relaxed);
}

std::size_t timeline::column(std::string_view name) const {
  for (std::size_t i = 0; i < _columns.size(); ++i) {
    if (_columns[i].name == name) return i;
  }
  MAGNETAR_UNREACHABLE("timeline: no column '{}'", name);
}

void timeline::record_latency_micros(std::int64_t micros) {
  if (!_latency) return;
  const std::lock_guard lock(_latency_mutex);
  _latency_micros.record(std::max<std::int64_t>(micros, 0));
}

std::string timeline::csv_header() const {
  std::string out = "epochMillis";
  for (const timeline_column& c : _columns) fmt::format_to(std::back_inserter(out), ",{}", c.name);
  if (_latency) out += ",p50Millis,p99Millis,maxMillis";
  out += '\n';
  return out;
}

std::string timeline::flush_row(std::int64_t epoch_millis) {
  std::string out = fmt::format("{}", epoch_millis);
  for (std::size_t i = 0; i < _columns.size(); ++i) {
    const std::int64_t v = _columns[i].kind == timeline_column_kind::counter
                               ? _values[i].exchange(0, std::memory_order_relaxed)
                               : _values[i].load(std::memory_order_relaxed);
    fmt::format_to(std::back_inserter(out), ",{}", v);
  }
  if (_latency) {
    std::int64_t p50 = 0, p99 = 0, max = 0;
    bool any = false;
    {
      const std::lock_guard lock(_latency_mutex);
      any = !_latency_micros.empty();
      if (any) {
        p50 = _latency_micros.value_at_percentile(50.0);
        p99 = _latency_micros.value_at_percentile(99.0);
        max = _latency_micros.max();
        _latency_micros.reset();
      }
    }
    if (any) {
      fmt::format_to(std::back_inserter(out), ",{:.3f},{:.3f},{:.3f}", static_cast<double>(p50) / 1000.0,
                     static_cast<double>(p99) / 1000.0, static_cast<double>(max) / 1000.0);
    } else {
      out += ",,,";
    }
  }
  out += '\n';
  return out;
}

result<std::unique_ptr<timeline_writer>> timeline_writer::start(timeline& source, const std::filesystem::path& file,
                                                                std::chrono::milliseconds interval,
                                                                base::clock& clock) {
  MAGNETAR_ASSERT(interval.count() > 0, "timeline_writer: interval {} ms", interval.count());
  std::FILE* out = std::fopen(file.c_str(), "we");
  if (out == nullptr) {
    return fail(base::errc::io_error,
                fmt::format("timeline: cannot create {}: {}", file.string(), std::strerror(errno)));
  }
  const std::string header = source.csv_header();
  if (std::fputs(header.c_str(), out) < 0 || std::fflush(out) != 0) {
    const int error = errno;
    std::fclose(out);
    return fail(base::errc::io_error,
                fmt::format("timeline: cannot write {}: {}", file.string(), std::strerror(error)));
  }
  return std::unique_ptr<timeline_writer>(new timeline_writer(source, out, file, interval, clock));
}

timeline_writer::timeline_writer(timeline& source, std::FILE* file, std::filesystem::path path,
                                 std::chrono::milliseconds interval, base::clock& clock)
    : _source(source),
      _file(file),
      _path(std::move(path)),
      _interval(interval),
      _clock(clock),
      _thread([this](std::stop_token stop) { run(std::move(stop)); }) {}

timeline_writer::~timeline_writer() { (void)stop(); }

void timeline_writer::run(std::stop_token stop) {
  // Deadlines from the start, not from the last write, so rows do not drift; after a
  // stall (a slow disk) the missed intervals fold into the next row.
  auto deadline = std::chrono::steady_clock::now() + _interval;
  std::unique_lock lock(_wait_mutex);
  for (;;) {
    // Returns early, with true, once a stop is requested.
    if (_wake.wait_until(lock, stop, deadline, [] { return false; }) || stop.stop_requested()) return;
    write_row();
    const auto now = std::chrono::steady_clock::now();
    while (deadline <= now) deadline += _interval;
  }
}

void timeline_writer::write_row() {
  const auto epoch_millis =
      std::chrono::duration_cast<std::chrono::milliseconds>(_clock.wall_now().time_since_epoch()).count();
  const std::string row = _source.flush_row(epoch_millis);
  if ((std::fputs(row.c_str(), _file) < 0 || std::fflush(_file) != 0) && _error.empty()) {
    _error = fmt::format("timeline: cannot write {}: {}", _path.string(), std::strerror(errno));
  }
}

result<void> timeline_writer::stop() {
  if (_stopped) return success();
  _stopped = true;
  _thread.request_stop();
  if (_thread.joinable()) _thread.join();
  write_row();
  if (std::fclose(_file) != 0 && _error.empty()) {
    _error = fmt::format("timeline: cannot close {}: {}", _path.string(), std::strerror(errno));
  }
  _file = nullptr;
  if (!_error.empty()) return fail(base::errc::io_error, _error);
  return success();
}

}  // namespace magnetar::perf
