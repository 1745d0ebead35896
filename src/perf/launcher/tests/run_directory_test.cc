#include "perf/launcher/run_directory.h"

#include "perf/cluster/tests/test_support.h"

#include <gtest/gtest.h>

#include <regex>

namespace magnetar::perf {
namespace {

using testing::read_text;
using testing::temp_dir;

// 2026-12-01T10:20:30Z
const auto some_time = std::chrono::system_clock::time_point(std::chrono::seconds(1796120430));

TEST(run_directory, is_named_by_date_name_and_utc_time) {
  temp_dir reports;
  auto run = create_run_directory(reports.path(), "iot-small", some_time);
  ASSERT_TRUE(run) << run.error();
  EXPECT_EQ(run.value().root, reports.path() / "2026-12-01" / "iot-small" / "12-01-10-20-30");
}

TEST(run_directory, holds_the_run_id_and_the_sub_folders) {
  temp_dir reports;
  auto run = create_run_directory(reports.path(), "x", some_time);
  ASSERT_TRUE(run) << run.error();
  EXPECT_TRUE(std::regex_match(run.value().run_id, std::regex("[0-9a-f]{32}")));
  EXPECT_EQ(read_text(run.value().root / "run-id.txt"), run.value().run_id + "\n");
  for (const char* sub : {"coordination", "gateways", "applications", "workloads", "standalone"}) {
    EXPECT_TRUE(std::filesystem::is_directory(run.value().root / sub)) << sub;
  }
}

TEST(run_directory, runs_in_the_same_second_get_numbered_folders) {
  temp_dir reports;
  auto first = create_run_directory(reports.path(), "x", some_time);
  auto second = create_run_directory(reports.path(), "x", some_time);
  auto third = create_run_directory(reports.path(), "x", some_time);
  ASSERT_TRUE(first && second && third);
  EXPECT_EQ(second.value().root.filename(), "12-01-10-20-30-2");
  EXPECT_EQ(third.value().root.filename(), "12-01-10-20-30-3");
  EXPECT_NE(first.value().run_id, second.value().run_id);
}

TEST(run_directory, refuses_a_name_with_a_slash) {
  temp_dir reports;
  auto run = create_run_directory(reports.path(), "a/b", some_time);
  ASSERT_FALSE(run);
  EXPECT_NE(run.error().detail().find("a/b"), std::string::npos);
}

TEST(run_directory, run_ids_differ) { EXPECT_NE(generate_run_id(), generate_run_id()); }

TEST(run_directory, formats_times_as_iso8601_utc) { EXPECT_EQ(iso8601_utc(some_time), "2026-12-01T10:20:30Z"); }

}  // namespace
}  // namespace magnetar::perf
