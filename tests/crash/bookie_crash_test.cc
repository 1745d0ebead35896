// Kills a bookie process with SIGKILL at random moments, many times over,
// and checks that every entry it ever acknowledged is still there, intact
// and in order. The moments are counted in acknowledgements, not time, so
// the test does the same on a loaded machine.
#include "io/temp_directory.h"

#include <gtest/gtest.h>

#include <cstdio>
#include <random>
#include <string>

#include <signal.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

namespace {

std::string writer_binary() { return BOOKIE_CRASH_WRITER; }

struct child {
  pid_t pid = -1;
  FILE* out = nullptr;
};

child start(const std::vector<std::string>& args) {
  int fds[2];
  EXPECT_EQ(::pipe(fds), 0);
  child c;
  std::vector<char*> argv;
  for (const auto& a : args) argv.push_back(const_cast<char*>(a.c_str()));
  argv.push_back(nullptr);
  const pid_t test = ::getpid();
  c.pid = ::fork();
  if (c.pid == 0) {
    // Dies with the test (see tests/e2e/standalone_process.h); async-signal-safe calls only.
    ::prctl(PR_SET_PDEATHSIG, SIGKILL);
    if (::getppid() != test) ::_exit(127);
    ::dup2(fds[1], STDOUT_FILENO);
    ::close(fds[0]);
    ::close(fds[1]);
    ::execv(argv[0], argv.data());
    ::_exit(127);
  }
  ::close(fds[1]);
  c.out = ::fdopen(fds[0], "r");
  return c;
}

int wait_exit(child& c) {
  int status = 0;
  ::waitpid(c.pid, &status, 0);
  ::fclose(c.out);
  return status;
}

TEST(bookie_crash, every_acknowledged_entry_survives_repeated_sigkill) {
  magnetar::io::temp_directory dir("bookie-crash");
  std::mt19937_64 random(20261130);
  std::int64_t last_acked = -1;
  constexpr int rounds = 15;
  for (int round = 0; round < rounds; ++round) {
    auto writer = start({writer_binary(), "write", dir.path()});
    // Kill after a random number of acks; some rounds die during start-up.
    const auto acks_before_kill = std::uniform_int_distribution<int>(0, 3000)(random);
    char line[128];
    int acks = 0;
    bool resumed = false;
    while (acks < acks_before_kill && std::fgets(line, sizeof line, writer.out) != nullptr) {
      std::int64_t n = 0;
      if (std::sscanf(line, "resume %ld", &n) == 1) {
        // Entries stored without their ack reaching us may have survived too.
        ASSERT_GT(n, last_acked) << "round " << round << " resumed before an acknowledged entry";
        last_acked = n - 1;
        resumed = true;
      } else if (std::sscanf(line, "ack %ld", &n) == 1) {
        ASSERT_EQ(n, last_acked + 1) << "acks come in entry order";
        last_acked = n;
        ++acks;
      }
      if (acks_before_kill == 0 && resumed) break;
    }
    ::kill(writer.pid, SIGKILL);
    const int status = wait_exit(writer);
    ASSERT_TRUE(WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL)
        << "round " << round << ": the writer ended by itself (status " << status << ")";
  }
  ASSERT_GT(last_acked, 0);
  auto verifier = start({writer_binary(), "verify", dir.path(), std::to_string(last_acked)});
  std::string report;
  char line[256];
  while (std::fgets(line, sizeof line, verifier.out) != nullptr) report += line;
  const int status = wait_exit(verifier);
  EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << report;
}

}  // namespace
