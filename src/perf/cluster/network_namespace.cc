#include "perf/cluster/network_namespace.h"

#include "base/errc.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <fcntl.h>
#include <sched.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>
#include <cerrno>
#include <cstring>
#include <thread>

extern char** environ;

namespace magnetar::perf {

result<void> enter_network_namespace(const std::filesystem::path& namespace_file) {
  const int fd = ::open(namespace_file.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) {
    return fail(base::errc::io_error, fmt::format("open {}: {}", namespace_file.string(), std::strerror(errno)));
  }
  const int entered = ::setns(fd, CLONE_NEWNET);
  const int error = errno;
  ::close(fd);
  if (entered != 0) {
    return fail(base::errc::io_error,
                fmt::format("enter network namespace {}: {}", namespace_file.string(), std::strerror(error)));
  }
  return success();
}

result<void> in_network_namespace(const std::filesystem::path& namespace_file, const std::function<void()>& work) {
  if (namespace_file.empty()) {
    work();
    return success();
  }
  result<void> outcome = success();
  std::thread([&] {
    outcome = enter_network_namespace(namespace_file);
    if (outcome) work();
  }).join();
  return outcome;
}

result<std::string> run_tool(const std::vector<std::string>& argv) {
  int pipe_fds[2];
  if (::pipe2(pipe_fds, O_CLOEXEC) != 0) return fail(base::errc::io_error, std::strerror(errno));
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, STDIN_FILENO, "/dev/null", O_RDONLY, 0);
  posix_spawn_file_actions_adddup2(&actions, pipe_fds[1], STDOUT_FILENO);
  posix_spawn_file_actions_adddup2(&actions, pipe_fds[1], STDERR_FILENO);
  std::vector<char*> args;
  for (const auto& arg : argv) args.push_back(const_cast<char*>(arg.c_str()));
  args.push_back(nullptr);
  pid_t pid = -1;
  const int spawned = ::posix_spawnp(&pid, args[0], &actions, nullptr, args.data(), environ);
  posix_spawn_file_actions_destroy(&actions);
  ::close(pipe_fds[1]);
  std::string output;
  if (spawned == 0) {
    char buffer[4096];
    for (ssize_t n; (n = ::read(pipe_fds[0], buffer, sizeof buffer)) != 0;) {
      if (n > 0)
        output.append(buffer, static_cast<std::size_t>(n));
      else if (errno != EINTR)
        break;
    }
  }
  ::close(pipe_fds[0]);
  if (spawned != 0) return fail(base::errc::io_error, fmt::format("start {}: {}", argv[0], std::strerror(spawned)));
  int status = 0;
  while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  if (WIFEXITED(status) && WEXITSTATUS(status) == 0) return output;
  while (!output.empty() && output.back() == '\n') output.pop_back();
  return fail(base::errc::io_error, fmt::format("`{}` failed: {}", fmt::join(argv, " "), output));
}

}  // namespace magnetar::perf
