#include "perf/measure/events_log.h"
#include "perf/launcher/console_log.h"

#include "perf/cluster/tests/test_support.h"

#include <gtest/gtest.h>

namespace magnetar::perf {
namespace {

using testing::read_text;
using testing::temp_dir;

const auto at_millis = [](std::int64_t ms) {
  return std::chrono::system_clock::time_point(std::chrono::milliseconds(ms));
};

TEST(events_log, two_writers_share_one_header_and_keep_every_line) {
  temp_dir dir;
  const auto file = dir.path() / "events.csv";
  auto launcher = events_log::open(file);
  auto workload = events_log::open(file);
  ASSERT_TRUE(launcher && workload);
  ASSERT_TRUE(launcher.value().append("launcher", "run-started", at_millis(1)));
  ASSERT_TRUE(workload.value().append("gateways", "gateways-started", at_millis(2)));
  ASSERT_TRUE(launcher.value().append("launcher", "run-finished", at_millis(3)));
  EXPECT_EQ(read_text(file),
            "epochMillis,source,event\n"
            "1,launcher,run-started\n"
            "2,gateways,gateways-started\n"
            "3,launcher,run-finished\n");
}

TEST(events_log, reopening_keeps_the_lines_and_adds_no_header) {
  temp_dir dir;
  const auto file = dir.path() / "events.csv";
  ASSERT_TRUE(events_log::open(file).value().append("launcher", "a", at_millis(1)));
  ASSERT_TRUE(events_log::open(file).value().append("launcher", "b", at_millis(2)));
  EXPECT_EQ(read_text(file), "epochMillis,source,event\n1,launcher,a\n2,launcher,b\n");
}

TEST(events_log, commas_in_an_event_do_not_add_columns) {
  temp_dir dir;
  auto log = events_log::open(dir.path() / "events.csv");
  ASSERT_TRUE(log.value().append("launcher", "a,b\nc", at_millis(5)));
  EXPECT_EQ(read_text(dir.path() / "events.csv"), "epochMillis,source,event\n5,launcher,a_b_c\n");
}

TEST(events_log, a_missing_folder_is_an_io_error_naming_the_file) {
  auto log = events_log::open("/nonexistent-folder/events.csv");
  ASSERT_FALSE(log);
  EXPECT_EQ(log.error(), base::errc::io_error);
  EXPECT_NE(log.error().detail().find("/nonexistent-folder/events.csv"), std::string::npos);
}

TEST(console_log, copies_lines_to_the_file_once_attached) {
  temp_dir dir;
  const auto terminal_path = dir.path() / "terminal.txt";
  std::FILE* terminal = std::fopen(terminal_path.c_str(), "w");
  {
    console_log console(terminal);
    console.line("before");
    ASSERT_TRUE(console.attach(dir.path() / "console.log.txt"));
    console.line("after");
    console.error_line("failed");
  }
  std::fclose(terminal);
  EXPECT_EQ(read_text(terminal_path), "before\nafter\nfailed\n");
  EXPECT_EQ(read_text(dir.path() / "console.log.txt"), "after\nfailed\n");
}

}  // namespace
}  // namespace magnetar::perf
