#include "perf/report/run_report.h"
#include "perf/report/tests/synthetic_run.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <fmt/format.h>
#include <cstdlib>
#include <fstream>

namespace magnetar::perf {
namespace {
namespace fs = std::filesystem;
using report::testing::read_file;
using report::testing::synthetic_run_options;
using report::testing::temporary_folder;
using report::testing::write_synthetic_run;
using ::testing::HasSubstr;
using ::testing::Not;

constexpr const char* chart_names[] = {"throughput", "backlog", "latency-percentiles", "latency-timeline"};

// Sets MAGNETAR_GNUPLOT for one test and restores it.
class gnuplot_override {
 public:
  explicit gnuplot_override(const char* value) {
    if (const char* old = std::getenv("MAGNETAR_GNUPLOT")) _old = old;
    setenv("MAGNETAR_GNUPLOT", value, 1);
  }
  ~gnuplot_override() {
    if (_old.empty()) {
      unsetenv("MAGNETAR_GNUPLOT");
    } else {
      setenv("MAGNETAR_GNUPLOT", _old.c_str(), 1);
    }
  }

 private:
  std::string _old;
};

// The values of every `name="..."` attribute (std::regex recurses too deep on the
// megabytes of an inlined chart).
std::vector<std::string> attribute_values(const std::string& html, const std::string& name) {
  std::vector<std::string> values;
  std::string opening = " " + name + "=\"";
  for (auto at = html.find(opening); at != std::string::npos; at = html.find(opening, at + 1)) {
    auto begin = at + opening.size();
    values.push_back(html.substr(begin, html.find('"', begin) - begin));
  }
  return values;
}

class run_report_test : public ::testing::Test {
 protected:
  fs::path run_dir() const { return _folder.path() / "run"; }
  fs::path write_report(const synthetic_run_options& options = {}) {
    write_synthetic_run(run_dir(), options);
    auto index = write_run_report(run_dir());
    EXPECT_TRUE(index) << index.error();
    return index ? index.value() : fs::path();
  }
  std::string readme() const { return read_file(run_dir() / "README.md"); }

  temporary_folder _folder;
};

TEST_F(run_report_test, writes_readme_and_index_into_the_run_directory) {
  auto index = write_report();
  EXPECT_EQ(index, run_dir() / "index.html");
  EXPECT_GT(fs::file_size(run_dir() / "README.md"), 0u);
  EXPECT_GT(fs::file_size(run_dir() / "index.html"), 0u);
}

TEST_F(run_report_test, readme_opens_with_the_title_and_the_verdict) {
  write_report();
  auto text = readme();
  EXPECT_EQ(
      text.rfind("# Run report: iot-telemetry-small (0123456789abcdef0123456789abcdef)\n\n**Verdict: PASSED**", 0), 0u)
      << text.substr(0, 200);
}

TEST_F(run_report_test, readme_shows_settings_correctness_throughput_and_host) {
  write_report();
  auto text = readme();
  EXPECT_THAT(text, HasSubstr("| Rate | 1000 msg/s |"));
  EXPECT_THAT(text, HasSubstr("| Applications × pods (Key\\_Shared) | 2 × 2 |"));
  EXPECT_THAT(text, HasSubstr("| `iot-application-1` | 25,000 | 7 | 0 | 0 | 0 | 0 | – |"));
  EXPECT_THAT(text, HasSubstr("| Measured throughput | 1,000.0 msg/s |"));
  EXPECT_THAT(text, HasSubstr("| Measurement duration | 20.0 s |"));
  EXPECT_THAT(text, HasSubstr("| Hostname | perf-host |"));
  EXPECT_THAT(text, HasSubstr("| Memory | 8.0 GiB |"));
}

TEST_F(run_report_test, settings_say_at_what_priority_the_workloads_ran) {
  write_report();
  EXPECT_THAT(readme(), HasSubstr("| Workload priority | 10 nice steps below the launcher |"));
}

TEST_F(run_report_test, workloads_at_the_launchers_priority_say_so) {
  write_report({.workload_nice = 0});
  EXPECT_THAT(readme(), HasSubstr("| Workload priority | same as the launcher |"));
}

TEST_F(run_report_test, a_run_that_did_not_record_the_workloads_priority_has_no_such_row) {
  write_report({.workload_nice = std::nullopt});
  EXPECT_THAT(readme(), Not(HasSubstr("Workload priority")));
  EXPECT_THAT(readme(), HasSubstr("| Cluster | a standalone the launcher started |"));
}

TEST_F(run_report_test, latency_table_has_publish_and_each_application) {
  write_report();
  auto text = readme();
  EXPECT_THAT(text, HasSubstr("| Latency (ms) | p50 | p95 | p99 | p99.9 | max |"));
  EXPECT_THAT(text, HasSubstr("| Publish (send to receipt) | 1.25 | 2.50 | 4.75 | 9.50 | 21.0 |"));
  EXPECT_THAT(text, HasSubstr("| End to end, iot-application-0 | 2.50 | 5.00 | 9.50 | 19.0 | 42.0 |"));
  EXPECT_THAT(text, HasSubstr("| End to end, iot-application-1 |"));
}

TEST_F(run_report_test, backlog_summary_has_the_maximum_per_subscription) {
  write_report();
  EXPECT_THAT(readme(), ::testing::ContainsRegex("\\| `iot-application-0` \\| [0-9]+ \\| 0 \\|"));
}

TEST_F(run_report_test, charts_are_non_empty_png_files_embedded_by_relative_path) {
  write_report();
  auto text = readme();
  for (const char* name : chart_names) {
    auto png = run_dir() / "charts" / (std::string(name) + ".png");
    ASSERT_TRUE(fs::is_regular_file(png)) << png;
    EXPECT_EQ(read_file(png).substr(0, 8), "\x89PNG\r\n\x1a\n") << png;
    EXPECT_THAT(text, HasSubstr(fmt::format("](charts/{}.png)", name)));
  }
}

TEST_F(run_report_test, time_charts_mark_the_run_events) {
  write_report();
  auto script = read_file(run_dir() / "charts" / "throughput.gp");
  EXPECT_THAT(script, HasSubstr("'gateways-started' at 2,"));
  EXPECT_THAT(script, HasSubstr("'warmup-finished / measurement-started' at 7,"));
  EXPECT_THAT(script, HasSubstr("'gateways-finished' at 27,"));
}

TEST_F(run_report_test, time_axis_counts_seconds_from_the_run_start) {
  write_report();
  auto data = read_file(run_dir() / "charts" / "throughput-0.dat");
  EXPECT_EQ(data.rfind("3 ", 0), 0u) << data.substr(0, 40);
}

TEST_F(run_report_test, latency_percentile_chart_uses_the_inverse_tail_axis) {
  write_report();
  auto script = read_file(run_dir() / "charts" / "latency-percentiles.gp");
  EXPECT_THAT(script, HasSubstr("set logscale x"));
  EXPECT_THAT(script, HasSubstr("'99.9%%' 1000"));
  // The 50th percentile lands at 1/(1-0.5) = 2.
  EXPECT_THAT(read_file(run_dir() / "charts" / "latency-percentiles-0.dat"), HasSubstr("\n2 "));
}

TEST_F(run_report_test, index_html_inlines_the_charts_and_references_nothing_external) {
  write_report();
  auto html = read_file(run_dir() / "index.html");
  auto sources = attribute_values(html, "src");
  EXPECT_EQ(sources.size(), 4u);
  for (const auto& source : sources) {
    EXPECT_EQ(source.rfind("data:image/png;base64,", 0), 0u) << source.substr(0, 60);
  }
  for (const auto& target : attribute_values(html, "href")) {
    EXPECT_THAT(target, Not(HasSubstr("//"))) << "external link";
  }
  EXPECT_THAT(html, Not(HasSubstr("<link")));
  EXPECT_THAT(html, Not(HasSubstr("<script")));
  EXPECT_THAT(html, Not(HasSubstr("@import")));
  EXPECT_THAT(html, Not(HasSubstr("url(")));
}

TEST_F(run_report_test, index_html_says_what_readme_says) {
  write_report();
  auto html = read_file(run_dir() / "index.html");
  EXPECT_THAT(html, HasSubstr("<div class=\"verdict passed\"><div class=\"label\">PASSED</div>"));
  EXPECT_THAT(html, HasSubstr("<td class=\"num\">1,000.0 msg/s</td>"));
  EXPECT_THAT(html, HasSubstr("<a href=\"resolved-config.yaml\">"));
  EXPECT_THAT(html, HasSubstr("<a href=\"gateways/gateways-latency.hgrm\">"));
}

TEST_F(run_report_test, failed_run_shows_failed_with_each_reason) {
  synthetic_run_options options;
  options.passed = false;
  options.failures = {"missing messages: iot-application-0 misses 3 messages of 2 devices",
                      "ordering violations: iot-application-0 has 2"};
  options.missing_messages = 3;
  options.ordering_violations = 2;
  write_report(options);
  auto text = readme();
  EXPECT_THAT(text,
              HasSubstr("**Verdict: FAILED**\n\n- missing messages: iot-application-0 misses 3 messages of 2 devices\n"
                        "- ordering violations: iot-application-0 has 2\n"));
  EXPECT_THAT(text, HasSubstr("**Ordering violations, invalid or missing messages were found.**"));
  EXPECT_THAT(text, HasSubstr("| `iot-application-0` | 25,000 | 0 | 2 | 0 | 3 | 0 | "
                              "[2 sample(s)](applications/iot-application-0/ordering-violations.txt) |"));
  EXPECT_THAT(read_file(run_dir() / "index.html"), HasSubstr("<div class=\"verdict failed\">"));
}

TEST_F(run_report_test, an_empty_violations_file_is_not_linked) {
  write_synthetic_run(run_dir());
  const auto violations = run_dir() / "applications" / "iot-application-1" / "ordering-violations.txt";
  std::ofstream(violations).flush();
  ASSERT_TRUE(fs::exists(violations));
  ASSERT_TRUE(write_run_report(run_dir()));
  EXPECT_THAT(readme(), HasSubstr("| `iot-application-1` | 25,000 | 7 | 0 | 0 | 0 | 0 | – |"));
}

TEST_F(run_report_test, missing_files_are_named_and_the_rest_is_still_shown) {
  write_synthetic_run(run_dir());
  fs::remove(run_dir() / "events.csv");
  fs::remove(run_dir() / "topic-stats.csv");
  fs::remove_all(run_dir() / "applications" / "iot-application-1");
  ASSERT_TRUE(write_run_report(run_dir()));
  auto text = readme();
  EXPECT_THAT(text, HasSubstr("## Missing files"));
  EXPECT_THAT(text, HasSubstr("- `events.csv`"));
  EXPECT_THAT(text, HasSubstr("- `topic-stats.csv`"));
  EXPECT_THAT(text, HasSubstr("- `applications/iot-application-1/`"));
  EXPECT_THAT(text, HasSubstr("**Unknown for iot-application-1: no application summary.**"));
  EXPECT_THAT(text, HasSubstr("no backlog chart: the run has no data for it"));
  EXPECT_THAT(text, HasSubstr("| Measured throughput | 1,000.0 msg/s |"));
  EXPECT_TRUE(fs::is_regular_file(run_dir() / "charts" / "throughput.png"));
}

TEST_F(run_report_test, run_that_failed_at_the_start_gets_a_report_naming_what_is_missing) {
  fs::create_directories(run_dir());
  std::ofstream(run_dir() / "run-id.txt") << "feedfeedfeedfeedfeedfeedfeedfeed\n";
  auto index = write_run_report(run_dir());
  ASSERT_TRUE(index) << index.error();
  auto text = readme();
  EXPECT_THAT(text, HasSubstr("**Verdict: UNKNOWN**\n\n- run-info.json is missing: the run did not finish"));
  for (const char* missing : {"run-info.json", "resolved-config.yaml", "events.csv", "gateways/", "applications/"}) {
    EXPECT_THAT(text, HasSubstr(fmt::format("- `{}`", missing)));
  }
  EXPECT_TRUE(fs::is_regular_file(run_dir() / "index.html"));
}

TEST_F(run_report_test, malformed_summary_is_reported_as_unreadable) {
  write_synthetic_run(run_dir());
  std::ofstream(run_dir() / "gateways" / "gateways-summary.json") << "{\"gateways\": ";
  ASSERT_TRUE(write_run_report(run_dir()));
  EXPECT_THAT(readme(), HasSubstr("unreadable: `gateways/gateways-summary.json: malformed JSON`"));
}

TEST_F(run_report_test, without_gnuplot_the_report_is_written_with_a_note) {
  gnuplot_override no_gnuplot("/nonexistent/gnuplot");
  write_report();
  auto text = readme();
  EXPECT_THAT(text, HasSubstr("no charts: gnuplot was not found"));
  EXPECT_THAT(text, Not(HasSubstr("](charts/")));
  EXPECT_FALSE(fs::exists(run_dir() / "charts" / "throughput.png"));
  EXPECT_THAT(read_file(run_dir() / "index.html"), HasSubstr("PASSED"));
}

TEST_F(run_report_test, a_path_that_is_not_a_directory_fails_with_not_found) {
  auto index = write_run_report(_folder.path() / "absent");
  ASSERT_FALSE(index);
  EXPECT_EQ(index.error(), base::errc::not_found);
}

}  // namespace
}  // namespace magnetar::perf
