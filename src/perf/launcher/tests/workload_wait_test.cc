// The launcher's wait for its workload processes, with real children (/bin/sh).
#include "perf/launcher/workload_wait.h"

#include "perf/cluster/tests/test_support.h"

#include <gtest/gtest.h>

namespace magnetar::perf {
namespace {

using testing::temp_dir;

// A child that runs `script` in sh, its output in the folder.
child_process shell(const temp_dir& dir, const std::string& name, const std::string& script) {
  auto started =
      child_process::start({.program = "/bin/sh", .args = {"-c", script}, .log_file = dir.path() / (name + ".log")});
  EXPECT_TRUE(started) << started.error();
  return std::move(started).value();
}

auto far_deadline() { return std::chrono::steady_clock::now() + std::chrono::minutes(5); }

TEST(workload_wait, every_exit_code_is_recorded) {
  temp_dir dir;
  auto a = shell(dir, "a", "exit 0");
  auto b = shell(dir, "b", "exit 2");
  auto c = shell(dir, "c", "exit 0");
  workload_outcome oa, ob, oc;
  std::vector<running_workload> running = {{.name = "gateways", .child = &a, .outcome = &oa},
                                           {.name = "applications", .child = &b, .outcome = &ob},
                                           {.name = "remote applications", .child = &c, .outcome = &oc}};
  wait_for_workloads(running, {.deadline = far_deadline()});
  EXPECT_EQ(oa.exit_code, 0);
  EXPECT_EQ(ob.exit_code, 2);
  EXPECT_EQ(oc.exit_code, 0);
  EXPECT_FALSE(oc.stopped_because);
}

TEST(workload_wait, a_failed_workload_stops_the_others_naming_it) {
  temp_dir dir;
  auto gateways = shell(dir, "g", "exec sleep 300");
  auto applications = shell(dir, "a", "exec sleep 300");
  auto remote = shell(dir, "r", "exit 1");
  workload_outcome og, oa, orr;
  std::vector<running_workload> running = {{.name = "gateways", .child = &gateways, .outcome = &og},
                                           {.name = "applications", .child = &applications, .outcome = &oa},
                                           {.name = "remote applications", .child = &remote, .outcome = &orr}};
  std::vector<std::string> lines;
  wait_for_workloads(
      running, {.deadline = far_deadline(), .error_line = [&](std::string_view line) { lines.emplace_back(line); }});
  EXPECT_EQ(orr.exit_code, 1);
  EXPECT_FALSE(orr.stopped_because);
  ASSERT_TRUE(og.stopped_because);
  EXPECT_EQ(*og.stopped_because, "the remote applications failed");
  EXPECT_TRUE(oa.stopped_because);
  EXPECT_FALSE(gateways.running());
  EXPECT_FALSE(applications.running());
  ASSERT_EQ(lines.size(), 1u);
  EXPECT_EQ(lines[0], "the remote applications failed: stopping the workloads");
}

TEST(workload_wait, an_interrupted_run_stops_every_workload) {
  temp_dir dir;
  auto gateways = shell(dir, "g", "exec sleep 300");
  workload_outcome og;
  std::vector<running_workload> running = {{.name = "gateways", .child = &gateways, .outcome = &og}};
  wait_for_workloads(running, {.deadline = far_deadline(), .interrupted = [] { return true; }});
  ASSERT_TRUE(og.stopped_because);
  EXPECT_EQ(*og.stopped_because, "the run was interrupted (SIGINT/SIGTERM)");
  EXPECT_TRUE(og.exit_code);
}

TEST(workload_wait, a_workload_past_the_deadline_is_stopped) {
  temp_dir dir;
  auto applications = shell(dir, "a", "exec sleep 300");
  workload_outcome oa;
  std::vector<running_workload> running = {{.name = "applications", .child = &applications, .outcome = &oa}};
  wait_for_workloads(running,
                     {.deadline = std::chrono::steady_clock::now(), .timeout_seconds = 45, .grace_seconds = 60});
  ASSERT_TRUE(oa.stopped_because);
  EXPECT_EQ(*oa.stopped_because, "still running 60 s past timeoutSeconds (45)");
}

TEST(workload_wait, each_seconds_reason_stops_the_workloads) {
  temp_dir dir;
  auto gateways = shell(dir, "g", "exec sleep 300");
  workload_outcome og;
  std::vector<running_workload> running = {{.name = "gateways", .child = &gateways, .outcome = &og}};
  wait_for_workloads(running, {.deadline = far_deadline(), .each_second = [] { return std::string("a cut failed"); }});
  ASSERT_TRUE(og.stopped_because);
  EXPECT_EQ(*og.stopped_because, "a cut failed");
}

}  // namespace
}  // namespace magnetar::perf
