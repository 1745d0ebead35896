#include "perf/cluster/child_process.h"

#include "base/errc.h"
#include "perf/cluster/network_namespace.h"

#include <fmt/format.h>

#include <fcntl.h>
#include <poll.h>
#include <spawn.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>
#include <cerrno>
#include <csignal>
#include <cstring>
#include <deque>
#include <fstream>

extern char** environ;

namespace magnetar::perf {

namespace {

int open_pidfd(pid_t pid) { return static_cast<int>(::syscall(SYS_pidfd_open, pid, 0)); }

std::vector<std::string> merged_environment(const std::vector<std::pair<std::string, std::string>>& additions) {
  std::vector<std::string> out;
  for (char** entry = environ; *entry != nullptr; ++entry) {
    std::string_view text(*entry);
    const auto name = text.substr(0, text.find('='));
    bool replaced = false;
    for (const auto& [key, value] : additions) replaced = replaced || key == name;
    if (!replaced) out.emplace_back(text);
  }
  for (const auto& [key, value] : additions) out.push_back(key + "=" + value);
  return out;
}

std::vector<char*> pointers(std::vector<std::string>& strings) {
  std::vector<char*> out;
  out.reserve(strings.size() + 1);
  for (auto& s : strings) out.push_back(s.data());
  out.push_back(nullptr);
  return out;
}

int exit_code_of(int status) {
  if (WIFEXITED(status)) return WEXITSTATUS(status);
  if (WIFSIGNALED(status)) return child_process::signal_exit_base + WTERMSIG(status);
  return -1;
}

// posix_spawn's attributes and file actions, destroyed on every path out.
struct spawn_setup {
  posix_spawnattr_t attributes;
  posix_spawn_file_actions_t actions;
  spawn_setup() {
    posix_spawnattr_init(&attributes);
    posix_spawn_file_actions_init(&actions);
  }
  ~spawn_setup() {
    posix_spawn_file_actions_destroy(&actions);
    posix_spawnattr_destroy(&attributes);
  }
  spawn_setup(const spawn_setup&) = delete;
  spawn_setup& operator=(const spawn_setup&) = delete;
};

}  // namespace

result<child_process> child_process::start(const child_spec& spec) {
  // The log is opened here rather than by a file action so that a bad path is reported
  // as such instead of as a failed spawn.
  const int log = ::open(spec.log_file.c_str(), O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
  if (log < 0) {
    return fail(base::errc::io_error, fmt::format("open {}: {}", spec.log_file.string(), std::strerror(errno)));
  }
  spawn_setup setup;
  posix_spawn_file_actions_addopen(&setup.actions, STDIN_FILENO, "/dev/null", O_RDONLY, 0);
  posix_spawn_file_actions_adddup2(&setup.actions, log, STDOUT_FILENO);
  posix_spawn_file_actions_adddup2(&setup.actions, log, STDERR_FILENO);

  // Own process group; an empty signal mask and default dispositions, whatever the
  // launcher blocked or ignored (the standalone waits for SIGTERM with sigwait).
  sigset_t none;
  sigemptyset(&none);
  sigset_t defaults;
  sigemptyset(&defaults);
  for (int signal : {SIGTERM, SIGINT, SIGPIPE, SIGHUP, SIGCHLD}) sigaddset(&defaults, signal);
  posix_spawnattr_setpgroup(&setup.attributes, 0);
  posix_spawnattr_setsigmask(&setup.attributes, &none);
  posix_spawnattr_setsigdefault(&setup.attributes, &defaults);
  posix_spawnattr_setflags(&setup.attributes, POSIX_SPAWN_SETPGROUP | POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF);

  std::vector<std::string> argv_strings{spec.program.string()};
  argv_strings.insert(argv_strings.end(), spec.args.begin(), spec.args.end());
  auto env_strings = merged_environment(spec.environment);
  auto argv = pointers(argv_strings);
  auto envp = pointers(env_strings);

  pid_t pid = -1;
  int spawned = 0;
  // A child starts in the network namespace of the thread that spawns it.
  auto entered = in_network_namespace(spec.network_namespace, [&] {
    spawned = ::posix_spawnp(&pid, spec.program.c_str(), &setup.actions, &setup.attributes, argv.data(), envp.data());
  });
  ::close(log);
  if (!entered) return entered.error();
  if (spawned != 0) {
    return fail(base::errc::io_error, fmt::format("start {}: {}", spec.program.string(), std::strerror(spawned)));
  }
  const int pidfd = open_pidfd(pid);
  if (pidfd < 0) {
    // Without a pidfd the child could not be waited for with a deadline: stop it now.
    const int error = errno;
    ::kill(pid, SIGKILL);
    int status = 0;
    ::waitpid(pid, &status, 0);
    return fail(base::errc::io_error,
                fmt::format("pidfd_open for {}: {}", spec.program.string(), std::strerror(error)));
  }
  return child_process(pid, pidfd, spec.log_file);
}

child_process::child_process(child_process&& other) noexcept
    : _pid(std::exchange(other._pid, -1)),
      _pidfd(std::exchange(other._pidfd, -1)),
      _exit_code(std::exchange(other._exit_code, std::nullopt)),
      _log_file(std::move(other._log_file)) {}

child_process& child_process::operator=(child_process&& other) noexcept {
  if (this != &other) {
    release();
    _pid = std::exchange(other._pid, -1);
    _pidfd = std::exchange(other._pidfd, -1);
    _exit_code = std::exchange(other._exit_code, std::nullopt);
    _log_file = std::move(other._log_file);
  }
  return *this;
}

child_process::~child_process() { release(); }

void child_process::detach() {
  if (_pidfd >= 0) ::close(_pidfd);
  _pidfd = -1;
  _pid = -1;
}

void child_process::release() {
  if (_pid > 0 && !_exit_code) terminate();
  if (_pidfd >= 0) ::close(_pidfd);
  _pidfd = -1;
  _pid = -1;
}

std::optional<int> child_process::reap_if_exited() {
  if (_exit_code || _pid <= 0) return _exit_code;
  int status = 0;
  const pid_t reaped = ::waitpid(_pid, &status, WNOHANG);
  if (reaped == _pid) {
    _exit_code = exit_code_of(status);
    ::close(_pidfd);
    _pidfd = -1;
  }
  return _exit_code;
}

std::optional<int> child_process::wait_until(std::chrono::steady_clock::time_point deadline) {
  for (;;) {
    if (auto code = reap_if_exited()) return code;
    if (_pidfd < 0) return std::nullopt;
    const auto now = std::chrono::steady_clock::now();
    if (now >= deadline) return std::nullopt;
    // poll() takes int milliseconds; a far deadline is waited for in slices of a minute.
    const auto left = std::chrono::ceil<std::chrono::milliseconds>(deadline - now).count();
    pollfd descriptor{.fd = _pidfd, .events = POLLIN, .revents = 0};
    // EINTR (a signal for the launcher) just goes round again.
    ::poll(&descriptor, 1, static_cast<int>(std::min<std::int64_t>(left, 60'000)));
  }
}

int child_process::terminate(std::chrono::milliseconds grace) {
  if (auto code = reap_if_exited()) return *code;
  if (_pid <= 0) return -1;
  ::kill(_pid, SIGTERM);
  if (auto code = wait_until(std::chrono::steady_clock::now() + grace)) return *code;
  ::kill(_pid, SIGKILL);
  // SIGKILL cannot be caught: the wait ends; the deadline only guards against a stuck
  // kernel (uninterruptible sleep), where leaving the zombie is all one can do.
  if (auto code = wait_until(std::chrono::steady_clock::now() + std::chrono::seconds(30))) return *code;
  return -1;
}

std::string tail_lines(const std::filesystem::path& file, int max_lines) {
  std::ifstream in(file);
  std::deque<std::string> lines;
  for (std::string line; std::getline(in, line);) {
    lines.push_back(std::move(line));
    if (static_cast<int>(lines.size()) > max_lines) lines.pop_front();
  }
  std::string out;
  for (const auto& line : lines) out += line + "\n";
  return out;
}

}  // namespace magnetar::perf
