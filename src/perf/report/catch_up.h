// catch_up: what the report says about late applications (issue 7), which join a live
// stream after the measurement started and must catch up on their backlog: each one's join,
// backlog at the join, catch-up time and rate, and the broker's entry cache during the
// measurement. Figures from the application summaries, topic-stats.csv and
// broker-metrics.csv as src/perf/README.md defines them; shared by the run report's
// Catch-up section, its Throughput note and the comparison's key figures.
//
// Pure functions on a loaded run; thread-safe.
#pragma once

#include "perf/report/document.h"
#include "perf/report/run_data.h"

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace magnetar::perf::report {

// One late application (summary joinSeconds > 0). Times are in seconds.
struct catch_up_row {
  std::string subscription;
  bool joined = false;                         // joinEpochMillis > 0
  std::optional<double> joined_seconds;        // after the measurement start, when both are known
  std::optional<double> backlog_at_join;       // summed over its topics, latest sample at or before the join
  std::optional<double> catch_up_seconds;      // caughtUp - join; nullopt: not caught up
  bool after_gateways_finished = false;        // caught up after measurementEndEpochMillis
  std::optional<double> catch_up_rate;         // messagesWhenCaughtUp over the catch-up time, msg/s
  std::optional<double> rate_until_last;       // not caught up: unique over last message - join, msg/s
  std::optional<double> last_message_seconds;  // last measured receipt - join
  double caught_up_latency_millis = 1000;      // the threshold the application applied
};

// The measurement's start and end in epoch milliseconds: the gateways' summary, else the
// measurement-started and gateways-finished events; nullopt when neither says.
std::optional<std::int64_t> measurement_start_millis(const run_data& run);
std::optional<std::int64_t> measurement_end_millis(const run_data& run);

// Whether an application's summary says it is late.
bool is_late(const application_data& app);
bool has_late_applications(const run_data& run);

// The late applications in the run's order; empty without any.
std::vector<catch_up_row> catch_up_rows(const run_data& run);

// The entry cache over the measurement: counter differences between the samples nearest
// its start and its end (the last sample when the end is unknown).
struct cache_figures {
  double hits = 0;
  double misses = 0;
  double inserts = 0;
  double evictions = 0;
  std::optional<double> hit_ratio;  // hits / (hits + misses), nullopt without reads
  double bytes_at_end = 0;
  std::int64_t from_millis = 0;  // the samples used
  std::int64_t to_millis = 0;
};
// nullopt when broker-metrics.csv is absent or has no sample.
std::optional<cache_figures> measurement_cache_figures(const run_data& run);

// The Catch-up section; only meaningful when has_late_applications().
section catch_up_section(const run_data& run);

// The Throughput section's note when the late applications' measured rates add up to more
// than those of the applications that joined at the start; nullopt otherwise.
std::optional<paragraph> late_throughput_note(const run_data& run);

}  // namespace magnetar::perf::report
