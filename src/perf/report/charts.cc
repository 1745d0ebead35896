#include "perf/report/charts.h"

#include <fmt/format.h>

#include <fcntl.h>
#include <spawn.h>
#include <sys/wait.h>

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <optional>

extern char** environ;

namespace magnetar::perf::report {
namespace fs = std::filesystem;
namespace {

// The events marked on the time charts, as the contract names them.
constexpr const char* marked_events[] = {"gateways-started", "warmup-finished", "measurement-started",
                                         "gateways-finished"};

// Late applications' joins and catch-ups, one event per subscription; network impairments
// applied and removed during the run (whole-run ones act before the first mark), and
// cluster nodes that ended.
constexpr const char* marked_prefixes[] = {"application-joined-", "application-caught-up-", "network-applied-",
                                           "network-removed-",    "network-failed-",        "node-exited-"};

bool is_marked(const std::string& event) {
  if (std::find(std::begin(marked_events), std::end(marked_events), event) != std::end(marked_events)) return true;
  return std::any_of(std::begin(marked_prefixes), std::end(marked_prefixes),
                     [&](const char* prefix) { return event.starts_with(prefix); });
}

struct series {
  std::string title;
  std::vector<std::pair<double, double>> points;
  int color = 1;  // gnuplot line colour index, so that p50 and p99 of one source match
  bool dashed = false;
};

// gnuplot's single-quoted strings take a quote as two.
std::string gnuplot_string(std::string_view text) {
  std::string out = "'";
  for (char c : text) {
    out += c;
    if (c == '\'') out += '\'';
  }
  return out + "'";
}

struct marker {
  double seconds;
  std::string label;
};

// Events that fall together (warmup-finished and measurement-started usually do) share
// one line and one label, so that labels do not print over each other.
std::vector<marker> event_markers(const run_data& run, double span) {
  std::vector<marker> markers;
  auto start = run.start_millis();
  double close = std::max(0.5, span * 0.01);
  for (const auto& e : run.events) {
    if (!is_marked(e.event)) continue;
    double seconds = static_cast<double>(e.epoch_millis - start) / 1000.0;
    auto same = std::find_if(markers.begin(), markers.end(),
                             [&](const marker& m) { return std::abs(m.seconds - seconds) < close; });
    if (same == markers.end()) {
      markers.push_back({seconds, e.event});
    } else if (same->label.find(e.event) == std::string::npos) {
      same->label += " / " + e.event;
    }
  }
  return markers;
}

struct plot {
  std::string name;  // file stem
  std::string title;
  std::string xlabel;
  std::string ylabel;
  std::vector<series> lines;
  bool time_axis = true;  // seconds since start, with the run's events marked
  bool percentile_axis = false;
};

// Runs gnuplot on the script; an error text, or nullopt when it exited 0.
std::optional<std::string> run_gnuplot(const std::string& gnuplot, const fs::path& script, const fs::path& log,
                                       bool& not_found) {
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0);
  posix_spawn_file_actions_addopen(&actions, 1, log.c_str(), O_WRONLY | O_CREAT | O_APPEND, 0644);
  posix_spawn_file_actions_adddup2(&actions, 1, 2);
  std::string script_path = script.string();
  char* argv[] = {const_cast<char*>(gnuplot.c_str()), script_path.data(), nullptr};
  pid_t pid = 0;
  int spawned = posix_spawnp(&pid, gnuplot.c_str(), &actions, nullptr, argv, environ);
  posix_spawn_file_actions_destroy(&actions);
  if (spawned != 0) {
    not_found = spawned == ENOENT || spawned == EACCES;
    return fmt::format("cannot start {}: {}", gnuplot, std::strerror(spawned));
  }
  int status = 0;
  while (waitpid(pid, &status, 0) < 0) {
    if (errno != EINTR) return fmt::format("waiting for {}: {}", gnuplot, std::strerror(errno));
  }
  if (WIFEXITED(status) && WEXITSTATUS(status) == 0) return std::nullopt;
  return fmt::format("{} failed (see charts/{})", gnuplot, log.filename().string());
}

// time_span: the seconds that every time chart shows, so that their axes line up.
std::string script_for(const plot& p, const std::vector<fs::path>& data_files, const fs::path& png, const run_data& run,
                       double time_span) {
  std::string s;
  s += "set terminal pngcairo size 1200,480 noenhanced font 'Sans,10'\n";
  s += fmt::format("set output {}\n", gnuplot_string(png.string()));
  s += fmt::format("set title {} font 'Sans,12'\n", gnuplot_string(p.title));
  s += fmt::format("set xlabel {}\nset ylabel {}\n", gnuplot_string(p.xlabel), gnuplot_string(p.ylabel));
  // The legend right of the plot: below it, gnuplot sets it over the x axis label.
  s += "set grid lc rgb '#dddddd'\nset key outside right top vertical Left reverse font 'Sans,9'\n";
  s += "set border lc rgb '#444444'\nset style textbox opaque noborder\n";
  // Headroom above the highest point, so that a line along the top stays visible.
  s += "set yrange [0:*]\nset offsets 0, 0, graph 0.06, 0\n";
  double x_max = 0;
  std::size_t most_points = 0;
  for (const auto& line : p.lines) {
    most_points = std::max(most_points, line.points.size());
    for (const auto& [x, y] : line.points) x_max = std::max(x_max, x);
  }
  if (p.percentile_axis) {
    s += "set logscale x 10\n";
    // Tic labels are formats to gnuplot: a percent sign is written twice.
    s += "set xtics ('0%%' 1, '90%%' 10, '99%%' 100, '99.9%%' 1000, '99.99%%' 10000, '99.999%%' 100000, "
         "'99.9999%%' 1000000)\n";
    s += fmt::format("set xrange [1:{}]\n", std::max(10.0, x_max * 1.2));
  }
  if (p.time_axis) {
    auto markers = event_markers(run, time_span);
    s += fmt::format("set xrange [0:{}]\n", std::max(1.0, time_span * 1.02));
    for (const auto& m : markers) {
      s += fmt::format("set arrow from {0}, graph 0 to {0}, graph 1 nohead lc rgb '#888888' dt 2 lw 1\n", m.seconds);
      s += fmt::format(
          "set label {} at {}, graph 0.97 rotate by 90 right offset -0.7,0 font 'Sans,8' "
          "tc rgb '#555555' boxed front\n",
          gnuplot_string(m.label), m.seconds);
    }
  }
  // Points show a run of a few seconds; on a long one they would hide the lines.
  std::string style = most_points > 60 ? "lines" : "linespoints pt 7 ps 0.5";
  std::string plots;
  for (std::size_t i = 0; i < p.lines.size(); ++i) {
    const auto& line = p.lines[i];
    plots += fmt::format("{}{} using 1:2 with {} lw 2 lc {} {} title {}", plots.empty() ? "" : ", \\\n     ",
                         gnuplot_string(data_files[i].string()), style, line.color, line.dashed ? "dt 2" : "dt 1",
                         gnuplot_string(line.title));
  }
  s += "plot " + plots + "\n";
  return s;
}

std::vector<std::pair<double, double>> per_second(const std::vector<timeline_point>& timeline, std::int64_t start,
                                                  double timeline_point::*field, bool skip_empty) {
  std::vector<std::pair<double, double>> points;
  for (const auto& t : timeline) {
    // A second without receipts has no latency to show, not a latency of zero.
    if (skip_empty && t.count <= 0) continue;
    points.emplace_back(static_cast<double>(t.epoch_millis - start) / 1000.0, t.*field);
  }
  return points;
}

std::vector<std::pair<double, double>> percentile_points(const std::vector<percentile_point>& distribution) {
  std::vector<std::pair<double, double>> points;
  for (const auto& p : distribution) {
    // The 100th percentile is infinitely far right on this axis: the max is in the table.
    if (p.percentile >= 1.0) continue;
    points.emplace_back(1.0 / (1.0 - p.percentile), p.value_millis);
  }
  return points;
}

// A geo-replicated run's remote side: the replicators' backlog beside the remote
// subscriptions' (what has not crossed, and what crossed but was not read yet), and the
// remote applications' end-to-end latency over time.
void remote_plots(const run_data& run, std::int64_t start, std::vector<plot>& plots) {
  const auto& remote = *run.remote;
  const auto seconds = [&](std::int64_t at) { return static_cast<double>(at - start) / 1000.0; };
  plot backlog{"replication-backlog",
               "Replication backlog and the remote subscriptions' backlog",
               "seconds since run start",
               "messages",
               {}};
  series replication{"replication backlog (sum over topics)", {}, 1};
  for (const auto& s : remote.replication) replication.points.emplace_back(seconds(s.epoch_millis), s.backlog);
  backlog.lines.push_back(std::move(replication));
  int color = 2;
  for (const auto& [subscription, samples] : remote.backlog) {
    series line{"remote " + subscription, {}, color++, true};
    for (const auto& s : samples) line.points.emplace_back(seconds(s.epoch_millis), s.backlog);
    backlog.lines.push_back(std::move(line));
  }
  plots.push_back(std::move(backlog));

  plot latency{"remote-latency-timeline",
               "Remote applications' end-to-end latency (p99 solid, p50 dashed)",
               "seconds since run start",
               "latency (ms)",
               {}};
  color = 2;
  for (const auto& app : remote.applications) {
    latency.lines.push_back({"remote " + app.subscription + " p99",
                             per_second(app.timeline, start, &timeline_point::p99_millis, true), color});
    latency.lines.push_back({"remote " + app.subscription + " p50",
                             per_second(app.timeline, start, &timeline_point::p50_millis, true), color, true});
    ++color;
  }
  plots.push_back(std::move(latency));
}

std::vector<plot> plots_for(const run_data& run) {
  auto start = run.start_millis();
  std::vector<plot> plots;
  const std::string time_label = "seconds since run start";

  plot throughput{"throughput", "Throughput", time_label, "messages/s", {}};
  throughput.lines.push_back(
      {"gateways sent/s", per_second(run.gateways.timeline, start, &timeline_point::count, false), 1});
  int color = 2;
  for (const auto& app : run.applications) {
    throughput.lines.push_back(
        {app.subscription + " received/s", per_second(app.timeline, start, &timeline_point::count, false), color++});
  }
  plots.push_back(std::move(throughput));

  plot backlog{"backlog", "Backlog per subscription (sum over topics)", time_label, "messages", {}};
  color = 2;
  for (const auto& [subscription, samples] : run.backlog) {
    series line{subscription, {}, color++};
    for (const auto& s : samples) {
      line.points.emplace_back(static_cast<double>(s.epoch_millis - start) / 1000.0, s.backlog);
    }
    backlog.lines.push_back(std::move(line));
  }
  plots.push_back(std::move(backlog));

  // A cluster's nodes, one line each (a standalone has one broker and no bookie chart).
  const auto per_node = [&](const std::string& name, const std::string& title, const std::string& unit,
                            const std::map<std::string, std::vector<std::pair<std::int64_t, double>>>& by_node) {
    if (by_node.empty()) return;
    plot p{name, title, time_label, unit, {}};
    int node_color = 1;
    for (const auto& [node, samples] : by_node) {
      series line{node, {}, node_color++};
      for (const auto& [at, value] : samples) line.points.emplace_back(static_cast<double>(at - start) / 1000.0, value);
      p.lines.push_back(std::move(line));
    }
    plots.push_back(std::move(p));
  };
  per_node("broker-publish-rate", "Publish rate per broker (pulsar_rate_in)", "messages/s", run.broker_publish_rate);
  per_node("bookie-journal-sync", "Journal sync time per bookie (mean over each sample interval)", "ms",
           run.bookie_journal_sync_millis);

  plot percentiles{"latency-percentiles", "Latency by percentile", "percentile", "latency (ms)", {}};
  percentiles.time_axis = false;
  percentiles.percentile_axis = true;
  percentiles.lines.push_back({"publish", percentile_points(run.gateways.latency), 1});
  percentiles.lines.push_back(
      {"publish from intended send time", percentile_points(run.gateways.intended_latency), 1, true});
  color = 2;
  for (const auto& app : run.applications) {
    percentiles.lines.push_back({app.subscription + " end to end", percentile_points(app.latency), color++});
  }
  plots.push_back(std::move(percentiles));

  plot over_time{"latency-timeline", "Latency over time (p99 solid, p50 dashed)", time_label, "latency (ms)", {}};
  over_time.lines.push_back(
      {"publish p99", per_second(run.gateways.timeline, start, &timeline_point::p99_millis, true), 1});
  over_time.lines.push_back(
      {"publish p50", per_second(run.gateways.timeline, start, &timeline_point::p50_millis, true), 1, true});
  color = 2;
  for (const auto& app : run.applications) {
    over_time.lines.push_back(
        {app.subscription + " p99", per_second(app.timeline, start, &timeline_point::p99_millis, true), color});
    over_time.lines.push_back(
        {app.subscription + " p50", per_second(app.timeline, start, &timeline_point::p50_millis, true), color, true});
    ++color;
  }
  plots.push_back(std::move(over_time));
  if (run.remote) remote_plots(run, start, plots);

  for (auto& p : plots) {
    std::erase_if(p.lines, [](const series& s) { return s.points.empty(); });
  }
  return plots;
}

bool write_file(const fs::path& file, const std::string& content) {
  std::ofstream out(file, std::ios::binary | std::ios::trunc);
  out << content;
  return static_cast<bool>(out);
}

}  // namespace

chart_options default_chart_options() {
  chart_options options;
  if (const char* gnuplot = std::getenv("MAGNETAR_GNUPLOT"); gnuplot != nullptr && *gnuplot != '\0') {
    options.gnuplot = gnuplot;
  }
  return options;
}

chart_set draw_charts(const run_data& run, const fs::path& charts_dir, const chart_options& options) {
  chart_set result;
  std::error_code ec;
  fs::create_directories(charts_dir, ec);
  if (ec) {
    result.notes.push_back(fmt::format("no charts: cannot create {}: {}", charts_dir.string(), ec.message()));
    return result;
  }
  auto log = charts_dir / (options.file_prefix + "gnuplot.log");
  fs::remove(log, ec);
  bool gnuplot_missing = false;
  auto plots = plots_for(run);
  double time_span = 0;
  for (const auto& p : plots) {
    if (!p.time_axis) continue;
    for (const auto& line : p.lines) {
      for (const auto& point : line.points) time_span = std::max(time_span, point.first);
    }
  }
  for (const auto& m : event_markers(run, time_span)) time_span = std::max(time_span, m.seconds);
  for (const auto& p : plots) {
    if (p.lines.empty()) {
      result.notes.push_back(fmt::format("no {} chart: the run has no data for it", p.name));
      continue;
    }
    if (gnuplot_missing) continue;
    std::string stem = options.file_prefix + p.name;
    std::vector<fs::path> data_files;
    bool written = true;
    for (std::size_t i = 0; i < p.lines.size(); ++i) {
      data_files.push_back(charts_dir / fmt::format("{}-{}.dat", stem, i));
      std::string data;
      for (const auto& [x, y] : p.lines[i].points) data += fmt::format("{} {}\n", x, y);
      written = written && write_file(data_files.back(), data);
    }
    auto png = charts_dir / (stem + ".png");
    auto script = charts_dir / (stem + ".gp");
    written = written && write_file(script, script_for(p, data_files, png, run, time_span));
    if (!written) {
      result.notes.push_back(fmt::format("no {} chart: cannot write its files in {}", p.name, charts_dir.string()));
      continue;
    }
    fs::remove(png, ec);
    if (auto error = run_gnuplot(options.gnuplot, script, log, gnuplot_missing)) {
      if (gnuplot_missing) {
        result.notes.push_back(
            fmt::format("no charts: gnuplot was not found ({}); install gnuplot-nox or set MAGNETAR_GNUPLOT", *error));
      } else {
        result.notes.push_back(fmt::format("no {} chart: {}", p.name, *error));
      }
      continue;
    }
    if (!fs::is_regular_file(png, ec) || fs::file_size(png, ec) == 0) {
      result.notes.push_back(
          fmt::format("no {} chart: gnuplot wrote no image (see charts/{})", p.name, log.filename().string()));
      continue;
    }
    result.drawn.push_back({p.title, png});
  }
  return result;
}

}  // namespace magnetar::perf::report
