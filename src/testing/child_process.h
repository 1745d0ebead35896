// child_process: a program that a test starts, with its output in a log file.
//
// The child dies with the thread that started it (PR_SET_PDEATHSIG), so a test
// that crashes or times out leaves no process behind. Only this object's own
// child is ever signalled. Used from one thread.
#pragma once

#include <sys/types.h>

#include <chrono>
#include <string>
#include <vector>

namespace magnetar::testing {

class child_process {
 public:
  child_process() = default;
  ~child_process();
  child_process(const child_process&) = delete;
  child_process& operator=(const child_process&) = delete;

  // Starts `argv` (argv[0] a path) with stdout and stderr appended to `log_file`,
  // in `directory` when one is given. False when fork fails.
  bool start(const std::vector<std::string>& argv, const std::string& log_file, const std::string& directory = {});
  // SIGTERM, then SIGKILL after `grace`; waits for the exit. The exit status.
  int stop(std::chrono::milliseconds grace = std::chrono::seconds(10));
  // Waits for a child that ends by itself (a command, not a server); SIGKILL past
  // `limit`. Its exit code, or -1 when it was killed or signalled.
  int wait(std::chrono::milliseconds limit);
  // SIGKILL and wait: a crash.
  void kill();
  // SIGSTOP / SIGCONT: a process that hangs without closing its sockets.
  void pause();
  void resume();
  bool running();
  pid_t pid() const { return _pid; }

 private:
  pid_t _pid = -1;
};

// A TCP port on 127.0.0.1 that nothing listens on now (the kernel's choice).
int free_port();

// Waits up to `timeout` for `ready` to return true, polling every few ms.
template <class Ready>
bool wait_until(Ready ready, std::chrono::milliseconds timeout = std::chrono::seconds(60));

}  // namespace magnetar::testing

#include "testing/child_process_inl.h"
