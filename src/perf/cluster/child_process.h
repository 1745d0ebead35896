// child_process: one program the launcher starts (the standalone, a cluster's nodes, the
// gateways, the applications), with its output in a log file, optionally inside a network
// namespace, and stopped only through the pid it started.
//
//   auto child = child_process::start({.program = "/bin/sh", .args = {"-c", "exit 3"},
//                                      .log_file = dir / "sh.log"});
//   auto code = child->wait_until(std::chrono::steady_clock::now() + 5s);  // 3
//
// The child runs in its own process group, so a Ctrl-C at the terminal reaches the
// launcher alone, which then stops its children in order. Its stdin is /dev/null; its
// stdout and stderr are appended to the log file. Waiting sleeps in poll() on a pidfd:
// no polling loop, no SIGCHLD handler.
//
// Thread-safety: one owner; not for concurrent use. Move-only. The destructor
// terminates a child that still runs and reaps it.
#pragma once

#include "base/result.h"

#include <sys/types.h>
#include <chrono>
#include <filesystem>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace magnetar::perf {

struct child_spec {
  std::filesystem::path program;  // a path, or a name looked up in PATH
  std::vector<std::string> args;  // without argv[0]
  // Added to (or replacing in) the launcher's own environment.
  std::vector<std::pair<std::string, std::string>> environment;
  std::filesystem::path log_file;  // stdout and stderr, appended
  // The network namespace it starts in (/run/netns/NAME); empty: the launcher's.
  std::filesystem::path network_namespace;
};

class child_process {
 public:
  // The exit code of a process killed by a signal, as shells report it.
  static constexpr int signal_exit_base = 128;

  static result<child_process> start(const child_spec& spec);

  child_process(child_process&& other) noexcept;
  child_process& operator=(child_process&& other) noexcept;
  child_process(const child_process&) = delete;
  child_process& operator=(const child_process&) = delete;
  ~child_process();

  pid_t pid() const { return _pid; }
  // Readable (POLLIN) once the child has exited; for callers that wait on more than
  // the child (the standalone's ready file). -1 once reaped.
  int pidfd() const { return _pidfd; }
  const std::filesystem::path& log_file() const { return _log_file; }

  // Waits until the child exits or the deadline passes: its exit code (128 + signal when
  // a signal ended it), or nullopt while it still runs. Returns at once when already reaped.
  std::optional<int> wait_until(std::chrono::steady_clock::time_point deadline);
  // Without waiting.
  std::optional<int> poll() { return wait_until(std::chrono::steady_clock::time_point::min()); }
  // False once reaped or detached.
  bool running() { return _pid > 0 && !poll().has_value(); }

  // SIGTERM, then SIGKILL when it has not exited after `grace`; waits and returns the
  // exit code (at once when it had exited already).
  int terminate(std::chrono::milliseconds grace = std::chrono::seconds(10));
  // Lets the child run on past this object (a cluster left running): it is neither
  // stopped nor waited for any more.
  void detach();

 private:
  child_process(pid_t pid, int pidfd, std::filesystem::path log_file)
      : _pid(pid), _pidfd(pidfd), _log_file(std::move(log_file)) {}
  std::optional<int> reap_if_exited();
  void release();

  pid_t _pid = -1;
  int _pidfd = -1;
  std::optional<int> _exit_code;
  std::filesystem::path _log_file;
};

// The last `max_lines` lines of a text file (for error messages quoting a log), empty
// when it cannot be read.
std::string tail_lines(const std::filesystem::path& file, int max_lines = 20);

}  // namespace magnetar::perf
