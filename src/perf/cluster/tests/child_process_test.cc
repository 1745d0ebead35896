#include "perf/cluster/child_process.h"
#include "perf/cluster/network_namespace.h"

#include "perf/cluster/tests/test_support.h"

#include <gtest/gtest.h>

#include <fmt/format.h>

#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>
#include <csignal>

namespace magnetar::perf {
namespace {

using testing::read_text;
using testing::temp_dir;

const auto far = [] { return std::chrono::steady_clock::now() + std::chrono::seconds(60); };

child_spec shell(const temp_dir& dir, std::string script) {
  return {.program = "/bin/sh", .args = {"-c", std::move(script)}, .log_file = dir.path() / "child.log"};
}

TEST(child_process, reports_the_exit_code) {
  temp_dir dir;
  auto child = child_process::start(shell(dir, "exit 3"));
  ASSERT_TRUE(child) << child.error();
  EXPECT_EQ(child.value().wait_until(far()), 3);
  EXPECT_EQ(child.value().poll(), 3);  // reaped once, remembered
}

TEST(child_process, writes_stdout_and_stderr_to_the_log) {
  temp_dir dir;
  auto child = child_process::start(shell(dir, "echo out; echo err >&2"));
  ASSERT_TRUE(child);
  ASSERT_EQ(child.value().wait_until(far()), 0);
  EXPECT_EQ(read_text(dir.path() / "child.log"), "out\nerr\n");
}

TEST(child_process, passes_added_environment) {
  temp_dir dir;
  auto spec = shell(dir, "echo \"$MAGNETAR_TEST_VALUE\"");
  spec.environment = {{"MAGNETAR_TEST_VALUE", "forty-two"}};
  auto child = child_process::start(spec);
  ASSERT_TRUE(child);
  ASSERT_EQ(child.value().wait_until(far()), 0);
  EXPECT_EQ(read_text(dir.path() / "child.log"), "forty-two\n");
}

TEST(child_process, runs_in_its_own_process_group) {
  temp_dir dir;
  auto child = child_process::start({.program = "/bin/sleep", .args = {"60"}, .log_file = dir.path() / "c.log"});
  ASSERT_TRUE(child);
  EXPECT_EQ(::getpgid(child.value().pid()), child.value().pid());
}

TEST(child_process, a_running_child_is_still_running_at_the_deadline) {
  temp_dir dir;
  auto child = child_process::start({.program = "/bin/sleep", .args = {"60"}, .log_file = dir.path() / "c.log"});
  ASSERT_TRUE(child);
  EXPECT_EQ(child.value().wait_until(std::chrono::steady_clock::now()), std::nullopt);
  EXPECT_TRUE(child.value().running());
}

TEST(child_process, terminate_stops_a_sleeping_child_with_sigterm) {
  temp_dir dir;
  auto child = child_process::start({.program = "/bin/sleep", .args = {"60"}, .log_file = dir.path() / "c.log"});
  ASSERT_TRUE(child);
  EXPECT_EQ(child.value().terminate(), child_process::signal_exit_base + SIGTERM);
  EXPECT_FALSE(child.value().running());
}

TEST(child_process, terminate_kills_a_child_that_ignores_sigterm) {
  temp_dir dir;
  // The shell says when its trap is set, so SIGTERM cannot arrive before it.
  auto child = child_process::start(shell(dir, "trap '' TERM; echo armed; while :; do sleep 1; done"));
  ASSERT_TRUE(child);
  ASSERT_TRUE(testing::eventually([&] { return read_text(dir.path() / "child.log") == "armed\n"; }));
  EXPECT_EQ(child.value().terminate(std::chrono::milliseconds(100)), child_process::signal_exit_base + SIGKILL);
}

TEST(child_process, the_destructor_stops_a_running_child) {
  temp_dir dir;
  pid_t pid = 0;
  {
    auto child = child_process::start({.program = "/bin/sleep", .args = {"60"}, .log_file = dir.path() / "c.log"});
    ASSERT_TRUE(child);
    pid = child.value().pid();
  }
  // Reaped: the pid no longer names our child (kill fails with ESRCH).
  EXPECT_EQ(::kill(pid, 0), -1);
}

TEST(child_process, a_missing_program_fails_to_start) {
  temp_dir dir;
  auto child = child_process::start({.program = "/nonexistent/program", .log_file = dir.path() / "c.log"});
  ASSERT_FALSE(child);
  EXPECT_NE(child.error().detail().find("/nonexistent/program"), std::string::npos);
}

TEST(child_process, tail_lines_keeps_the_last_lines) {
  temp_dir dir;
  std::ofstream(dir.path() / "log") << "1\n2\n3\n4\n";
  EXPECT_EQ(tail_lines(dir.path() / "log", 2), "3\n4\n");
  EXPECT_EQ(tail_lines(dir.path() / "missing", 2), "");
}

TEST(child_process, a_detached_child_runs_on_and_is_no_longer_ours) {
  temp_dir dir;
  auto child = child_process::start(shell(dir, "sleep 30"));
  ASSERT_TRUE(child);
  const pid_t pid = child.value().pid();
  child.value().detach();
  EXPECT_FALSE(child.value().running());  // never kill(-1): the pid is forgotten
  EXPECT_EQ(child.value().terminate(), -1);
  EXPECT_EQ(::kill(pid, 0), 0);  // still alive after terminate() and the destructor
  ::kill(pid, SIGKILL);
  ::waitpid(pid, nullptr, 0);
}

TEST(child_process, starts_inside_a_network_namespace) {
  if (::access("/run/netns", W_OK) != 0 && ::geteuid() != 0) GTEST_SKIP() << "needs root for a network namespace";
  const std::string ns = fmt::format("mg-child-test-{}", ::getpid());
  if (!run_tool({"ip", "netns", "add", ns})) GTEST_SKIP() << "network namespaces cannot be made here";
  temp_dir dir;
  auto spec = shell(dir, "readlink /proc/self/ns/net");
  spec.network_namespace = "/run/netns/" + ns;
  auto child = child_process::start(spec);
  ASSERT_TRUE(child) << child.error();
  EXPECT_EQ(child.value().wait_until(far()), 0);
  struct stat ours {
  }, theirs{};
  ASSERT_EQ(::stat(("/run/netns/" + ns).c_str(), &theirs), 0);
  ASSERT_EQ(::stat("/proc/self/ns/net", &ours), 0);
  EXPECT_NE(ours.st_ino, theirs.st_ino);
  EXPECT_EQ(read_text(dir.path() / "child.log"), fmt::format("net:[{}]\n", theirs.st_ino));
  EXPECT_TRUE(run_tool({"ip", "netns", "delete", ns}));
}

}  // namespace
}  // namespace magnetar::perf
