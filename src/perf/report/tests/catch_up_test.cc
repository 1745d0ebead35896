// The run report's Catch-up section, its Throughput note, the join events on the charts and
// the catch-up figures in the comparison (issue 7), on synthetic runs with late applications.
#include "perf/report/run_report.h"
#include "perf/report/tests/synthetic_run.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <fmt/format.h>

namespace magnetar::perf {
namespace {
namespace fs = std::filesystem;
using report::testing::late_application;
using report::testing::read_file;
using report::testing::synthetic_run_options;
using report::testing::temporary_folder;
using report::testing::write_synthetic_run;
using ::testing::HasSubstr;
using ::testing::Not;

// Two applications: iot-application-0 joins at the start, iot-application-1 late as given.
synthetic_run_options with_late(late_application late = {}) {
  synthetic_run_options options;
  options.late.push_back(late);
  return options;
}

class catch_up_test : public ::testing::Test {
 protected:
  fs::path run_dir() const { return _folder.path() / "run"; }
  std::string report(const synthetic_run_options& options) {
    write_synthetic_run(run_dir(), options);
    return report_of_written_run();
  }
  std::string report_of_written_run() {
    auto index = write_run_report(run_dir());
    EXPECT_TRUE(index) << index.error();
    return read_file(run_dir() / "README.md");
  }

  temporary_folder _folder;
};

TEST_F(catch_up_test, section_shows_join_backlog_catch_up_time_rate_and_last_message) {
  auto text = report(with_late());
  EXPECT_THAT(text,
              HasSubstr("| Application | Joined | Backlog at join | Caught up after | Catch-up rate | Last message |"));
  // Joined 10 s into the measurement, at the sample of 17 s after the run start: 3 topics × 1,700.
  EXPECT_THAT(text, HasSubstr("| `iot-application-1` | 10.0 s | 5,100 | 8.0 s | 12,500 msg/s | 15.0 s |"));
  EXPECT_THAT(text, Not(HasSubstr("| `iot-application-0` | 0.0 s")));
}

TEST_F(catch_up_test, section_follows_throughput_and_precedes_latency) {
  auto text = report(with_late());
  auto catch_up = text.find("## Catch-up");
  ASSERT_NE(catch_up, std::string::npos);
  EXPECT_LT(text.find("## Throughput"), catch_up);
  EXPECT_LT(catch_up, text.find("## Latency"));
}

TEST_F(catch_up_test, section_states_the_rule_with_the_threshold_the_application_wrote) {
  late_application late;
  late.caught_up_latency_millis = 250;
  auto text = report(with_late(late));
  EXPECT_THAT(text, HasSubstr("caught up: every topic delivered, after the join, a measured message within 250 ms of "
                              "its publishing"));
}

TEST_F(catch_up_test, without_topic_stats_the_backlog_at_join_is_a_dash) {
  write_synthetic_run(run_dir(), with_late());
  fs::remove(run_dir() / "topic-stats.csv");
  EXPECT_THAT(report_of_written_run(),
              HasSubstr("| `iot-application-1` | 10.0 s | – | 8.0 s | 12,500 msg/s | 15.0 s |"));
}

TEST_F(catch_up_test, application_that_did_not_catch_up_shows_its_rate_until_its_last_message) {
  late_application late;
  late.caught_up_millis = -1;
  late.last_message_millis = 12'500;
  // 25,000 unique messages over 12.5 s.
  EXPECT_THAT(report(with_late(late)),
              HasSubstr("| `iot-application-1` | 10.0 s | 5,100 | not caught up | 2,000 msg/s until its last message "
                        "| 12.5 s |"));
}

TEST_F(catch_up_test, application_without_a_measured_message_shows_no_rate_and_no_last_message) {
  late_application late;
  late.caught_up_millis = -1;
  late.last_message_millis = -1;
  EXPECT_THAT(report(with_late(late)), HasSubstr("| `iot-application-1` | 10.0 s | 5,100 | not caught up | – | – |"));
}

TEST_F(catch_up_test, application_caught_up_in_the_millisecond_it_joined_shows_zero_seconds_and_no_rate) {
  late_application late;
  late.caught_up_millis = 0;
  EXPECT_THAT(report(with_late(late)), HasSubstr("| `iot-application-1` | 10.0 s | 5,100 | 0.0 s | – | 15.0 s |"));
}

TEST_F(catch_up_test, application_caught_up_after_the_gateways_finished_says_so) {
  late_application late;
  late.caught_up_millis = 15'000;  // 25 s into a measurement of 20 s
  late.last_message_millis = 16'000;
  EXPECT_THAT(report(with_late(late)),
              HasSubstr("| `iot-application-1` | 10.0 s | 5,100 | 15.0 s, after the gateways finished | 6,667 msg/s "
                        "| 16.0 s |"));
}

TEST_F(catch_up_test, application_that_never_joined_says_it_did_not_join) {
  late_application late;
  late.join_millis = -1;
  EXPECT_THAT(report(with_late(late)), HasSubstr("| `iot-application-1` | did not join | – | not caught up | – | – |"));
}

TEST_F(catch_up_test, no_section_without_late_applications) {
  auto text = report({});
  EXPECT_THAT(text, Not(HasSubstr("## Catch-up")));
  EXPECT_THAT(text, Not(HasSubstr("catch-up reads")));
}

TEST_F(catch_up_test, cache_figures_run_from_the_measurement_start_to_the_last_applications_last_message) {
  auto options = with_late();
  options.broker_metrics = true;
  auto text = report(options);
  // The late application's last message comes 3 s after the gateways finished.
  EXPECT_THAT(text, HasSubstr("the samples at 0.3 s and 23.3 s from the measurement's start"));
  EXPECT_THAT(text, HasSubstr("| Hits | 23,000 |"));
  EXPECT_THAT(text, HasSubstr("| Misses | 5,750 |"));
  EXPECT_THAT(text, HasSubstr("| Hit ratio | 80.0 % |"));
  EXPECT_THAT(text, HasSubstr("| Inserts | 6,900 |"));
  EXPECT_THAT(text, HasSubstr("| Evictions | 2,300 |"));
  EXPECT_THAT(text, HasSubstr("| Cached at the end | 122,880 bytes |"));
  EXPECT_THAT(text, HasSubstr("[broker-metrics.csv](broker-metrics.csv)"));
}

TEST_F(catch_up_test, without_broker_metrics_the_cache_is_said_not_sampled_and_not_missing) {
  auto text = report(with_late());
  EXPECT_THAT(text, HasSubstr("The broker's entry cache counters were not sampled"));
  EXPECT_THAT(text, Not(HasSubstr("## Missing files")));
}

TEST_F(catch_up_test, throughput_notes_when_late_applications_dominate_delivered_throughput) {
  late_application late;
  late.messages_per_second = 5000;
  auto text = report(with_late(late));
  auto note = text.find("dominated by late applications' catch-up reads");
  ASSERT_NE(note, std::string::npos);
  EXPECT_LT(note, text.find("## Catch-up"));
  EXPECT_THAT(text,
              HasSubstr("add up to 5,000.0 msg/s, those of the applications that joined at the start to 990.0 msg/s"));
}

TEST_F(catch_up_test, no_throughput_note_when_the_applications_that_joined_at_the_start_deliver_more) {
  // iot-application-1 at 980 msg/s, iot-application-0 at 990.
  EXPECT_THAT(report(with_late()), Not(HasSubstr("catch-up reads")));
}

TEST_F(catch_up_test, settings_show_the_join_times) {
  EXPECT_THAT(report(with_late()), HasSubstr("| Applications join at | 0, 10 s into the measurement |"));
}

TEST_F(catch_up_test, time_charts_mark_the_join_and_caught_up_events) {
  report(with_late());
  auto script = read_file(run_dir() / "charts" / "backlog.gp");
  EXPECT_THAT(script, HasSubstr("'application-joined-iot-application-1' at 17,"));
  EXPECT_THAT(script, HasSubstr("'application-caught-up-iot-application-1' at 25,"));
}

TEST_F(catch_up_test, comparison_shows_each_late_application_catch_up_time_and_rate) {
  write_synthetic_run(_folder.path() / "a", with_late());
  late_application faster;
  faster.caught_up_millis = 4'000;
  write_synthetic_run(_folder.path() / "b", with_late(faster));
  ASSERT_TRUE(write_comparison(_folder.path() / "a", _folder.path() / "b", _folder.path() / "out"));
  auto text = read_file(_folder.path() / "out" / "compare.md");
  EXPECT_THAT(text, HasSubstr("## Catch-up"));
  EXPECT_THAT(text, HasSubstr("| iot-application-1 catch-up time (s) | 8.0 | 4.0 | -4.0 | -50.0 % (better) |"));
  EXPECT_THAT(text, HasSubstr("| iot-application-1 catch-up rate (msg/s) | 12,500.0 | 25,000.0 | +12,500.0 | "
                              "+100.0 % (better) |"));
}

TEST_F(catch_up_test, comparison_without_late_applications_has_no_catch_up_section) {
  write_synthetic_run(_folder.path() / "a");
  write_synthetic_run(_folder.path() / "b");
  ASSERT_TRUE(write_comparison(_folder.path() / "a", _folder.path() / "b", _folder.path() / "out"));
  EXPECT_THAT(read_file(_folder.path() / "out" / "compare.md"), Not(HasSubstr("## Catch-up")));
}

}  // namespace
}  // namespace magnetar::perf
