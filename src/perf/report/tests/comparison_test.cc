#include "perf/report/run_report.h"
#include "perf/report/tests/synthetic_run.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

namespace magnetar::perf {
namespace {
namespace fs = std::filesystem;
using report::testing::read_file;
using report::testing::synthetic_run_options;
using report::testing::temporary_folder;
using report::testing::write_synthetic_run;
using ::testing::HasSubstr;
using ::testing::Not;

class comparison_test : public ::testing::Test {
 protected:
  void SetUp() override {
    synthetic_run_options a;
    write_synthetic_run(_folder.path() / "a", a);
    synthetic_run_options b;
    b.run_id = "fedcba9876543210fedcba9876543210";
    b.rate = 2000;
    b.latency_scale = 2.0;
    b.workload_nice = 0;
    write_synthetic_run(_folder.path() / "b", b);
  }
  result<fs::path> compare() {
    return write_comparison(_folder.path() / "a", _folder.path() / "b", _folder.path() / "out");
  }

  temporary_folder _folder;
};

TEST_F(comparison_test, writes_compare_md_and_html_into_the_output_folder) {
  auto html = compare();
  ASSERT_TRUE(html) << html.error();
  EXPECT_EQ(html.value(), _folder.path() / "out" / "compare.html");
  EXPECT_TRUE(fs::is_regular_file(_folder.path() / "out" / "compare.md"));
}

TEST_F(comparison_test, shows_both_runs_figures_with_the_change) {
  ASSERT_TRUE(compare());
  auto text = read_file(_folder.path() / "out" / "compare.md");
  EXPECT_THAT(text, HasSubstr("`0123456789abcdef0123456789abcdef`"));
  EXPECT_THAT(text, HasSubstr("`fedcba9876543210fedcba9876543210`"));
  EXPECT_THAT(text, HasSubstr("| Gateways, measured (msg/s) | 1,000.0 | 2,000.0 | +1,000.0 | +100.0 % (better) |"));
  EXPECT_THAT(text, HasSubstr("| Publish (send to receipt) p99 (ms) | 4.75 | 9.50 | +4.75 | +100.0 % (worse) |"));
  EXPECT_THAT(text, HasSubstr("| iot-application-1 duplicates | 7 | 7 | 0 | 0 % |"));
  EXPECT_THAT(text, HasSubstr("| Rate | 1000 msg/s | **2000 msg/s** |"));
}

TEST_F(comparison_test, shows_how_each_run_ran_its_workloads) {
  ASSERT_TRUE(compare());
  auto text = read_file(_folder.path() / "out" / "compare.md");
  EXPECT_THAT(text, HasSubstr("| Workload priority | 10 nice steps below the launcher | **same as the launcher** |"));
  EXPECT_THAT(text, HasSubstr("| Cluster | a standalone the launcher started | a standalone the launcher started |"));
}

TEST_F(comparison_test, puts_both_runs_charts_side_by_side) {
  ASSERT_TRUE(compare());
  for (const char* side : {"a-", "b-"}) {
    EXPECT_GT(fs::file_size(_folder.path() / "out" / "charts" / (std::string(side) + "throughput.png")), 0u);
  }
  auto html = read_file(_folder.path() / "out" / "compare.html");
  auto row = html.find("<div class=\"charts\">\n<figure><img src=\"data:image/png;base64,");
  ASSERT_NE(row, std::string::npos);
  auto first = html.find("alt=\"A: Throughput\">", row);
  auto second = html.find("<figure><img src=\"data:image/png;base64,", first);
  EXPECT_LT(second, html.find("</div>", row)) << "B's chart is in the same row as A's";
  EXPECT_LT(html.find("alt=\"B: Throughput\">", second), html.find("</div>", row));
  EXPECT_THAT(html, Not(HasSubstr("src=\"http")));
  EXPECT_THAT(html, Not(HasSubstr("src=\"charts/")));
}

TEST_F(comparison_test, a_failed_run_with_missing_files_is_compared_with_what_it_has) {
  fs::remove_all(_folder.path() / "b");
  synthetic_run_options b;
  b.passed = false;
  b.failures = {"timed out after 120 s"};
  write_synthetic_run(_folder.path() / "b", b);
  fs::remove_all(_folder.path() / "b" / "applications");
  ASSERT_TRUE(compare());
  auto text = read_file(_folder.path() / "out" / "compare.md");
  EXPECT_THAT(text, HasSubstr("| Verdict | **PASSED** | **FAILED** |"));
  EXPECT_THAT(text, HasSubstr("- timed out after 120 s"));
  EXPECT_THAT(text, HasSubstr("applications/iot-application-0/"));
  EXPECT_THAT(text, HasSubstr("| iot-application-0 received (msg/s) | 990.0 | – | – | – |"));
}

TEST_F(comparison_test, a_missing_run_directory_fails) {
  auto html = write_comparison(_folder.path() / "a", _folder.path() / "absent", _folder.path() / "out");
  ASSERT_FALSE(html);
  EXPECT_EQ(html.error(), base::errc::not_found);
}

}  // namespace
}  // namespace magnetar::perf
