#include "perf/launcher/progress_monitor.h"

#include "perf/cluster/tests/test_support.h"

#include <gtest/gtest.h>

namespace magnetar::perf {
namespace {

using testing::temp_dir;

TEST(progress_line, shows_every_figure) {
  progress_figures f{.elapsed_seconds = 10.2,
                     .produced_per_second = 1000,
                     .received_per_second = 2000.25,
                     .backlog = 12,
                     .publish_p50_millis = 1.2344,
                     .publish_p99_millis = 3.4567,
                     .end_to_end_p50_millis = 2,
                     .end_to_end_p99_millis = 5.1};
  EXPECT_EQ(format_progress_line(f),
            "[   10 s] produced: 1000.0 msg/s --- received: 2000.2 msg/s --- backlog: 12 --- publish p50: 1.234 ms "
            "p99: 3.457 ms --- end-to-end p50: 2.000 ms p99: 5.100 ms");
}

TEST(progress_line, shows_a_dash_for_a_missing_figure) {
  EXPECT_EQ(format_progress_line({.elapsed_seconds = 0}),
            "[    0 s] produced: - msg/s --- received: - msg/s --- backlog: - --- publish p50: - ms p99: - ms "
            "--- end-to-end p50: - ms p99: - ms");
}

TEST(progress_figures, rates_are_the_mean_of_the_new_rows_and_latency_the_latest) {
  std::vector<std::map<std::string, double>> gateways{{{"sent", 900}, {"p50Millis", 1}, {"p99Millis", 2}},
                                                      {{"sent", 1100}, {"p50Millis", 3}, {"p99Millis", 4}}};
  std::vector<std::vector<std::map<std::string, double>>> applications{
      {{{"received", 1000}, {"p50Millis", 5}, {"p99Millis", 9}}},
      {{{"received", 800}, {"p50Millis", 6}, {"p99Millis", 7}},
       {{"received", 1200}, {"p50Millis", 6}, {"p99Millis", 7}}}};
  const auto f = figures_from_timelines(gateways, applications);
  EXPECT_EQ(f.produced_per_second, 1000);
  EXPECT_EQ(f.publish_p50_millis, 3);
  EXPECT_EQ(f.publish_p99_millis, 4);
  EXPECT_EQ(f.received_per_second, 2000);  // 1000 + mean(800, 1200)
  EXPECT_EQ(f.end_to_end_p50_millis, 6);   // the worst application's
  EXPECT_EQ(f.end_to_end_p99_millis, 9);
}

TEST(progress_figures, without_rows_there_are_no_figures) {
  const auto f = figures_from_timelines({}, {{}});
  EXPECT_FALSE(f.produced_per_second);
  EXPECT_FALSE(f.received_per_second);
  EXPECT_FALSE(f.publish_p99_millis);
}

TEST(csv_tail, returns_only_complete_new_rows) {
  temp_dir dir;
  const auto file = dir.path() / "t.csv";
  csv_tail tail(file);
  EXPECT_TRUE(tail.new_rows().empty());  // not there yet
  std::ofstream out(file);
  out << "epochMillis,sent,p50Millis\n1000,5,1.5\n2000,6," << std::flush;
  auto rows = tail.new_rows();
  ASSERT_EQ(rows.size(), 1u);
  EXPECT_EQ(rows[0].at("sent"), 5);
  EXPECT_EQ(rows[0].at("p50Millis"), 1.5);
  out << "2.5\n" << std::flush;
  rows = tail.new_rows();
  ASSERT_EQ(rows.size(), 1u);
  EXPECT_EQ(rows[0].at("epochMillis"), 2000);
  EXPECT_EQ(rows[0].at("p50Millis"), 2.5);
  EXPECT_TRUE(tail.new_rows().empty());
}

TEST(progress_monitor, prints_a_line_from_the_run_directory) {
  temp_dir dir;
  std::filesystem::create_directories(dir.path() / "gateways");
  std::filesystem::create_directories(dir.path() / "applications" / "iot-application-0");
  std::ofstream(dir.path() / "gateways" / "gateways-timeline.csv")
      << "epochMillis,sent,sendErrors,inFlight,p50Millis,p99Millis,maxMillis\n1,500,0,0,1,2,3\n";
  std::ofstream(dir.path() / "applications" / "iot-application-0" / "application-timeline.csv")
      << "epochMillis,received,duplicates,violations,p50Millis,p99Millis,maxMillis\n1,400,0,0,4,5,6\n";
  std::vector<std::string> lines;
  progress_monitor monitor({.run_dir = dir.path(),
                            .backlog = [] { return std::optional<std::int64_t>(7); },
                            .print = [&](std::string_view line) { lines.emplace_back(line); }});
  monitor.print_line();
  ASSERT_EQ(lines.size(), 1u);
  EXPECT_NE(lines[0].find("produced: 500.0 msg/s --- received: 400.0 msg/s --- backlog: 7 --- publish p50: 1.000 ms "
                          "p99: 2.000 ms --- end-to-end p50: 4.000 ms p99: 5.000 ms"),
            std::string::npos)
      << lines[0];
}

TEST(progress_line, a_geo_replicated_run_shows_the_remote_side) {
  progress_figures f{.elapsed_seconds = 10};
  f.remote = remote_progress_figures{.received_per_second = 900,
                                     .backlog = 3,
                                     .replication_backlog = 40,
                                     .end_to_end_p50_millis = 30,
                                     .end_to_end_p99_millis = 52};
  EXPECT_NE(format_progress_line(f).find(" --- remote received: 900.0 msg/s --- remote backlog: 3 --- replication "
                                         "backlog: 40 --- remote end-to-end p50: 30.000 ms p99: 52.000 ms"),
            std::string::npos)
      << format_progress_line(f);
  EXPECT_EQ(format_progress_line({.elapsed_seconds = 10}).find("remote"), std::string::npos);
}

TEST(progress_monitor, reads_the_remote_applications_and_backlogs_with_a_remote_cluster) {
  temp_dir dir;
  std::filesystem::create_directories(dir.path() / "remote-applications" / "iot-application-0");
  std::ofstream(dir.path() / "remote-applications" / "iot-application-0" / "application-timeline.csv")
      << "epochMillis,received,duplicates,violations,p50Millis,p99Millis,maxMillis\n1,300,0,0,40,50,60\n";
  std::vector<std::string> lines;
  progress_monitor monitor({.run_dir = dir.path(),
                            .print = [&](std::string_view line) { lines.emplace_back(line); },
                            .remote = true,
                            .remote_backlog = [] { return std::optional<std::int64_t>(11); },
                            .replication_backlog = [] { return std::optional<std::int64_t>(22); }});
  monitor.print_line();
  ASSERT_EQ(lines.size(), 1u);
  EXPECT_NE(lines[0].find("remote received: 300.0 msg/s --- remote backlog: 11 --- replication backlog: 22 --- "
                          "remote end-to-end p50: 40.000 ms p99: 50.000 ms"),
            std::string::npos)
      << lines[0];
}

TEST(progress_monitor, stop_returns_without_waiting_for_the_interval) {
  temp_dir dir;
  progress_monitor monitor({.run_dir = dir.path(), .interval = std::chrono::seconds(3600)});
  monitor.start();
  monitor.stop();  // would hang for an hour if the thread slept
}

}  // namespace
}  // namespace magnetar::perf
