#include "perf/report/catch_up.h"

#include "perf/report/figures.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <set>

namespace magnetar::perf::report {
namespace {

std::optional<double> number(const std::optional<nlohmann::json>& object, const char* key) {
  return object ? json_number(*object, key) : std::nullopt;
}

// A time the summaries write as epoch milliseconds, 0 meaning "never".
std::optional<std::int64_t> epoch(const std::optional<nlohmann::json>& object, const char* key) {
  auto value = number(object, key);
  if (!value || *value <= 0) return std::nullopt;
  return static_cast<std::int64_t>(*value);
}

std::optional<std::int64_t> event_time(const run_data& run, std::string_view name) {
  for (const auto& e : run.events) {
    if (e.event == name) return e.epoch_millis;
  }
  return std::nullopt;
}

double seconds_between(std::int64_t from, std::int64_t to) { return static_cast<double>(to - from) / 1000.0; }

std::string seconds_text(double seconds) { return format_decimal(seconds, 1) + " s"; }

// The subscription's backlog at the latest sample at or before `at`: what the application
// faced when it opened its pods.
std::optional<double> backlog_at(const run_data& run, const std::string& subscription, std::int64_t at) {
  auto it = run.backlog.find(subscription);
  if (it == run.backlog.end()) return std::nullopt;
  std::optional<double> found;
  for (const auto& sample : it->second) {
    if (sample.epoch_millis > at) break;
    found = sample.backlog;
  }
  return found;
}

const cache_sample& nearest(const std::vector<cache_sample>& samples, std::int64_t at) {
  return *std::min_element(samples.begin(), samples.end(), [&](const cache_sample& a, const cache_sample& b) {
    return std::llabs(a.epoch_millis - at) < std::llabs(b.epoch_millis - at);
  });
}

std::string threshold_sentence(const std::vector<catch_up_row>& rows) {
  std::set<double> thresholds;
  for (const auto& row : rows) thresholds.insert(row.caught_up_latency_millis);
  // Written as the setting is (1000 ms), not as a count.
  if (thresholds.size() == 1) return fmt::format("{:.0f} ms", *thresholds.begin());
  // The setting is one for all applications; a run put together from several differs.
  std::string each;
  for (const auto& row : rows) {
    each += fmt::format("{}{:.0f} ms for {}", each.empty() ? "" : ", ", row.caught_up_latency_millis, row.subscription);
  }
  return "the application's threshold (" + each + ")";
}

void add_cache_blocks(const run_data& run, section& s) {
  if (!run.has_broker_metrics) {
    s.blocks.push_back(paragraph{"The broker's entry cache counters were not sampled: the run has no " +
                                 code("broker-metrics.csv") +
                                 " (the broker's /metrics did not answer, or the launcher predates it)."});
    return;
  }
  auto cache = measurement_cache_figures(run);
  if (!cache) {
    s.blocks.push_back(paragraph{"The broker's entry cache counters were not sampled: " + code("broker-metrics.csv") +
                                 " has no samples."});
    return;
  }
  auto start = measurement_start_millis(run);
  std::string window = start ? fmt::format("the samples at {} and {} from the measurement's start",
                                           seconds_text(seconds_between(*start, cache->from_millis)),
                                           seconds_text(seconds_between(*start, cache->to_millis)))
                             : "its first and last samples";
  s.blocks.push_back(paragraph{
      "The broker's entry cache from the measurement's start until the last application's last message, from " +
      code("broker-metrics.csv") +
      fmt::format(" (the counters' difference between {}, summed over the topics). A catch-up read that misses "
                  "the cache reads from storage; an application reading the same entries shortly after another "
                  "finds them in the cache.",
                  window)});
  table t{{"Entry cache", "Value"}, {false, true}, {}};
  t.rows.push_back({"Hits", format_count(cache->hits)});
  t.rows.push_back({"Misses", format_count(cache->misses)});
  t.rows.push_back({"Hit ratio", cache->hit_ratio ? format_decimal(*cache->hit_ratio * 100.0, 1) + " %" : "–"});
  t.rows.push_back({"Inserts", format_count(cache->inserts)});
  t.rows.push_back({"Evictions", format_count(cache->evictions)});
  t.rows.push_back({"Cached at the end", format_count(cache->bytes_at_end) + " bytes"});
  s.blocks.push_back(std::move(t));
  if (cache->hits < 0 || cache->misses < 0 || cache->inserts < 0 || cache->evictions < 0) {
    s.blocks.push_back(paragraph{
        bold("The counters went down during the measurement: the broker restarted, so these differences are not the "
             "measurement's.")});
  }
}

}  // namespace

std::optional<std::int64_t> measurement_start_millis(const run_data& run) {
  if (auto start = epoch(run.gateways.summary, "measurementStartEpochMillis")) return start;
  return event_time(run, "measurement-started");
}

std::optional<std::int64_t> measurement_end_millis(const run_data& run) {
  if (auto end = epoch(run.gateways.summary, "measurementEndEpochMillis")) return end;
  return event_time(run, "gateways-finished");
}

bool is_late(const application_data& app) { return number(app.summary, "joinSeconds").value_or(0) > 0; }

bool has_late_applications(const run_data& run) {
  return std::any_of(run.applications.begin(), run.applications.end(), is_late);
}

std::vector<catch_up_row> catch_up_rows(const run_data& run) {
  std::vector<catch_up_row> rows;
  auto start = measurement_start_millis(run);
  auto end = measurement_end_millis(run);
  for (const auto& app : run.applications) {
    if (!is_late(app)) continue;
    const auto& summary = app.summary;
    catch_up_row row;
    row.subscription = app.subscription;
    row.caught_up_latency_millis = number(summary, "caughtUpLatencyMillis").value_or(1000);
    auto join = epoch(summary, "joinEpochMillis");
    row.joined = join.has_value();
    if (join) {
      if (start) row.joined_seconds = seconds_between(*start, *join);
      row.backlog_at_join = backlog_at(run, app.subscription, *join);
      if (auto caught_up = epoch(summary, "caughtUpEpochMillis")) {
        row.catch_up_seconds = std::max(0.0, seconds_between(*join, *caught_up));
        row.after_gateways_finished = end && *caught_up > *end;
        auto messages = number(summary, "messagesWhenCaughtUp");
        // Caught up in the millisecond it joined: no time to divide by.
        if (messages && *row.catch_up_seconds > 0) row.catch_up_rate = *messages / *row.catch_up_seconds;
      }
      if (auto last = epoch(summary, "lastMeasuredReceiptEpochMillis")) {
        row.last_message_seconds = seconds_between(*join, *last);
        auto unique = number(summary, "unique");
        if (!row.catch_up_seconds && unique && *row.last_message_seconds > 0) {
          row.rate_until_last = *unique / *row.last_message_seconds;
        }
      }
    }
    rows.push_back(std::move(row));
  }
  return rows;
}

// The end of the reading: late applications may still catch up long after the gateways
// finished, and their reads are what the cache figures are about.
std::optional<std::int64_t> reading_end_millis(const run_data& run) {
  auto end = measurement_end_millis(run);
  for (const auto& app : run.applications) {
    if (auto last = epoch(app.summary, "lastMeasuredReceiptEpochMillis"); last && (!end || *last > *end)) end = last;
  }
  return end;
}

std::optional<cache_figures> measurement_cache_figures(const run_data& run) {
  const auto& samples = run.broker_cache;
  if (samples.empty()) return std::nullopt;
  auto start = measurement_start_millis(run);
  auto end = reading_end_millis(run);
  const cache_sample& from = start ? nearest(samples, *start) : samples.front();
  const cache_sample& to = end ? nearest(samples, *end) : samples.back();
  cache_figures figures;
  figures.hits = to.hits - from.hits;
  figures.misses = to.misses - from.misses;
  figures.inserts = to.inserts - from.inserts;
  figures.evictions = to.evictions - from.evictions;
  if (figures.hits + figures.misses > 0) figures.hit_ratio = figures.hits / (figures.hits + figures.misses);
  figures.bytes_at_end = to.bytes;
  figures.from_millis = from.epoch_millis;
  figures.to_millis = to.epoch_millis;
  return figures;
}

section catch_up_section(const run_data& run) {
  section s{"Catch-up", {}};
  auto rows = catch_up_rows(run);
  s.blocks.push_back(paragraph{
      "Late applications join the live stream after the measurement started and catch up on their "
      "subscription's backlog while the gateways keep publishing. A late application is caught up: every topic "
      "delivered, after the join, a measured message within " +
      threshold_sentence(rows) +
      " of its publishing. Joined counts from the measurement's start, the other times from the join. The "
      "catch-up rate is the unique messages the application held when it caught up (warmup included, as its "
      "backlog holds the warmup rounds) over the catch-up time; one that did not catch up shows its rate until "
      "its last message. The backlog at the join is the subscription's, summed over its topics, at the latest "
      "topic-stats sample at or before the join."});
  table t{{"Application", "Joined", "Backlog at join", "Caught up after", "Catch-up rate", "Last message"},
          {false, true, true, true, true, true},
          {}};
  for (const auto& row : rows) {
    inline_text joined = !row.joined          ? inline_text("did not join")
                         : row.joined_seconds ? inline_text(seconds_text(*row.joined_seconds))
                                              : inline_text("–");
    std::string caught_up = "not caught up";
    if (row.catch_up_seconds) {
      caught_up =
          seconds_text(*row.catch_up_seconds) + (row.after_gateways_finished ? ", after the gateways finished" : "");
    }
    std::string rate = "–";
    if (row.catch_up_rate) {
      rate = format_count(row.catch_up_rate) + " msg/s";
    } else if (row.rate_until_last) {
      rate = format_count(row.rate_until_last) + " msg/s until its last message";
    }
    t.rows.push_back({code(row.subscription), joined, format_count(row.backlog_at_join), caught_up, rate,
                      row.last_message_seconds ? seconds_text(*row.last_message_seconds) : "–"});
  }
  s.blocks.push_back(std::move(t));
  add_cache_blocks(run, s);
  return s;
}

std::optional<paragraph> late_throughput_note(const run_data& run) {
  double late = 0, at_start = 0;
  bool any_late = false;
  for (const auto& app : run.applications) {
    double rate = number(app.summary, "messagesPerSecond").value_or(0);
    if (is_late(app)) {
      any_late = true;
      late += rate;
    } else {
      at_start += rate;
    }
  }
  if (!any_late || late <= at_start) return std::nullopt;
  return paragraph{bold("The applications' delivered throughput is dominated by late applications' catch-up reads") +
                   fmt::format(": the late applications' measured rates add up to {} msg/s, those of the "
                               "applications that joined at the start to {} msg/s. See Catch-up.",
                               format_decimal(late, 1), format_decimal(at_start, 1))};
}

}  // namespace magnetar::perf::report
