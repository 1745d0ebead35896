#include "perf/workload/coordination.h"

#include <gtest/gtest.h>

#include <fstream>
#include <thread>

namespace magnetar::perf {
namespace {

class coordination_test : public ::testing::Test {
 protected:
  void SetUp() override {
    _dir = std::filesystem::temp_directory_path() / ("coordination-test-" + std::to_string(::getpid()) + "-" +
                                                     ::testing::UnitTest::GetInstance()->current_test_info()->name());
    std::filesystem::remove_all(_dir);
    std::filesystem::create_directories(_dir);
  }
  void TearDown() override { std::filesystem::remove_all(_dir); }
  std::filesystem::path _dir;
};

TEST_F(coordination_test, a_written_marker_reads_back_its_line) {
  coordination c(_dir, "run1");
  ASSERT_TRUE(c.write(c.measurement_start(), "12345"));
  EXPECT_EQ(c.read(c.measurement_start()), "12345");
}

TEST_F(coordination_test, a_missing_marker_reads_as_nothing) {
  coordination c(_dir, "run1");
  EXPECT_FALSE(c.read(c.gateways_finished()).has_value());
}

TEST_F(coordination_test, remote_applications_markers_are_other_files) {
  coordination local(_dir, "run1");
  coordination remote(_dir, "run1", "remote-");
  ASSERT_TRUE(remote.write(remote.applications_ready("app-0"), "ready"));
  EXPECT_FALSE(local.read(local.applications_ready("app-0")).has_value());
  EXPECT_EQ(remote.applications_ready("app-0").filename(), "run1.applications-ready.remote-app-0");
}

TEST_F(coordination_test, markers_of_another_run_are_other_files) {
  coordination earlier(_dir, "run1");
  coordination now(_dir, "run2");
  ASSERT_TRUE(earlier.write(earlier.warmup_received(1, "app-0"), "done"));
  EXPECT_FALSE(now.read(now.warmup_received(1, "app-0")).has_value());
}

TEST_F(coordination_test, waiting_ends_when_another_thread_writes_the_marker) {
  coordination c(_dir, "run1");
  std::jthread writer([&] { (void)c.write(c.applications_ready("app-0"), "ready"); });
  EXPECT_TRUE(c.wait_for({c.applications_ready("app-0")}, std::chrono::steady_clock::now() + std::chrono::minutes(1)));
}

TEST_F(coordination_test, waiting_for_a_marker_nobody_writes_times_out) {
  coordination c(_dir, "run1");
  auto waited = c.wait_for({c.applications_ready("app-0")}, std::chrono::steady_clock::now());
  ASSERT_FALSE(waited);
  EXPECT_EQ(waited.error().code(), base::errc::timed_out);
  EXPECT_NE(waited.error().message().find("applications-ready.app-0"), std::string::npos);
}

TEST_F(coordination_test, waiting_stops_when_asked) {
  coordination c(_dir, "run1");
  std::atomic<bool> stop{true};
  auto waited = c.wait_for({c.gateways_finished()}, std::chrono::steady_clock::now() + std::chrono::hours(1), &stop);
  ASSERT_FALSE(waited);
  EXPECT_EQ(waited.error().code(), base::errc::cancelled);
}

TEST_F(coordination_test, events_append_below_one_header) {
  const auto events = _dir / "events.csv";
  append_event(events, "gateways", "gateways-started");
  append_event(events, "applications", "applications-ready");
  std::ifstream in(events);
  std::vector<std::string> lines;
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  ASSERT_EQ(lines.size(), 3u);
  EXPECT_EQ(lines[0], "epochMillis,source,event");
  EXPECT_TRUE(lines[1].ends_with(",gateways,gateways-started"));
  EXPECT_TRUE(lines[2].ends_with(",applications,applications-ready"));
}

}  // namespace
}  // namespace magnetar::perf
