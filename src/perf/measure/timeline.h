// timeline: per-second figures of a workload (`gateways-timeline.csv`,
// `application-timeline.csv`): counters summed over the interval, gauges sampled at its
// end, and optionally the interval's latency percentiles, one CSV row per interval.
//
// timeline is thread-safe: add()/set()/record_latency_micros() come from the workload's
// send and listener threads, flush_row() from the writer; counters are atomics and the
// interval's latency histogram has a mutex of its own. timeline_writer owns the thread
// that flushes a row every interval into a file; its start() and stop() belong to one
// owner thread.
#pragma once

#include "base/clock.h"
#include "base/histogram.h"
#include "base/result.h"

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <memory>
#include <mutex>
#include <stop_token>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

namespace magnetar::perf {

enum class timeline_column_kind {
  counter,  // add(): the sum over the interval, reset by each row
  gauge,    // set(): the last value set, kept across rows
};

struct timeline_column {
  std::string name;
  timeline_column_kind kind = timeline_column_kind::counter;
};

// sent, sendErrors, inFlight (gauge): with latency, the gateways-timeline.csv columns.
std::vector<timeline_column> gateway_timeline_columns();
// received, duplicates, violations: with latency, the application-timeline.csv columns.
std::vector<timeline_column> application_timeline_columns();

class timeline {
 public:
  // Rows are epochMillis, then `columns` in order, then (with latency_columns)
  // p50Millis, p99Millis, maxMillis of the latencies recorded in the interval.
  timeline(std::vector<timeline_column> columns, bool latency_columns);

  timeline(const timeline&) = delete;
  timeline& operator=(const timeline&) = delete;

  // The index of a column for the add()/set() overloads that skip the name lookup.
  // Asserts that the column exists: a misspelt name is a bug of the caller.
  std::size_t column(std::string_view name) const;

  void add(std::size_t column, std::int64_t n = 1) noexcept { _values[column].fetch_add(n, std::memory_order_relaxed); }
  void add(std::string_view name, std::int64_t n = 1) { add(column(name), n); }
  void set(std::size_t column, std::int64_t value) noexcept { _values[column].store(value, std::memory_order_relaxed); }
  void set(std::string_view name, std::int64_t value) { set(column(name), value); }
  // Ignored without latency columns; values above one hour count as one hour.
  void record_latency_micros(std::int64_t micros);

  // "epochMillis,...\n".
  std::string csv_header() const;
  // The row of the interval that ends now, "epochMillis,...\n", and the start of the
  // next: counters and the latency histogram are reset. Latency fields are empty when
  // the interval had no samples (a chart then shows a gap rather than a zero latency).
  std::string flush_row(std::int64_t epoch_millis);

 private:
  std::vector<timeline_column> _columns;
  bool _latency;
  std::unique_ptr<std::atomic<std::int64_t>[]> _values;
  std::mutex _latency_mutex;
  base::histogram _latency_micros;
};

class timeline_writer {
 public:
  // Creates `file` with the header and starts a thread that appends source's row every
  // `interval` (stamped with the clock's wall time). io_error naming the file.
  static result<std::unique_ptr<timeline_writer>> start(timeline& source, const std::filesystem::path& file,
                                                        std::chrono::milliseconds interval = std::chrono::seconds(1),
                                                        base::clock& clock = base::system_clock());

  timeline_writer(const timeline_writer&) = delete;
  timeline_writer& operator=(const timeline_writer&) = delete;
  ~timeline_writer();

  // Stops and joins the thread, appends the last (partial) interval's row and closes the
  // file; the first write error, if any. Later calls return success and do nothing.
  result<void> stop();

 private:
  timeline_writer(timeline& source, std::FILE* file, std::filesystem::path path, std::chrono::milliseconds interval,
                  base::clock& clock);
  void run(std::stop_token stop);
  // Called by the thread, then by stop() once the thread is gone.
  void write_row();

  timeline& _source;
  std::FILE* _file;
  std::filesystem::path _path;
  std::chrono::milliseconds _interval;
  base::clock& _clock;
  std::string _error;  // the first write error; written by the thread until it is joined
  bool _stopped = false;
  std::mutex _wait_mutex;
  std::condition_variable_any _wake;
  std::jthread _thread;  // last: starts after every member it reads exists
};

}  // namespace magnetar::perf
