#include "testing/child_process.h"

#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <csignal>

extern char** environ;

namespace magnetar::testing {

child_process::~child_process() {
  if (_pid > 0) kill();
}

bool child_process::start(const std::vector<std::string>& argv, const std::string& log_file,
                          const std::string& directory) {
  std::vector<std::string> args = argv;
  std::vector<char*> raw;
  for (auto& a : args) raw.push_back(a.data());
  raw.push_back(nullptr);
  const int log = ::open(log_file.c_str(), O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
  if (log < 0) return false;
  const pid_t parent = ::getpid();
  _pid = ::fork();
  if (_pid < 0) {
    ::close(log);
    return false;
  }
  if (_pid == 0) {
    // Only async-signal-safe calls between fork and exec.
    ::prctl(PR_SET_PDEATHSIG, SIGKILL);
    if (::getppid() != parent) ::_exit(127);
    ::dup2(log, STDOUT_FILENO);
    ::dup2(log, STDERR_FILENO);
    if (!directory.empty() && ::chdir(directory.c_str()) != 0) ::_exit(126);
    ::execve(raw[0], raw.data(), environ);
    ::_exit(127);
  }
  ::close(log);
  return true;
}

int child_process::stop(std::chrono::milliseconds grace) {
  if (_pid <= 0) return -1;
  ::kill(_pid, SIGCONT);
  ::kill(_pid, SIGTERM);
  int status = 0;
  const auto deadline = std::chrono::steady_clock::now() + grace;
  while (::waitpid(_pid, &status, WNOHANG) == 0) {
    if (std::chrono::steady_clock::now() >= deadline) {
      ::kill(_pid, SIGKILL);
      ::waitpid(_pid, &status, 0);
      break;
    }
    ::usleep(10'000);
  }
  _pid = -1;
  return status;
}

int child_process::wait(std::chrono::milliseconds limit) {
  if (_pid <= 0) return -1;
  int status = 0;
  const auto deadline = std::chrono::steady_clock::now() + limit;
  while (::waitpid(_pid, &status, WNOHANG) == 0) {
    if (std::chrono::steady_clock::now() >= deadline) {
      ::kill(_pid, SIGKILL);
      ::waitpid(_pid, &status, 0);
      _pid = -1;
      return -1;
    }
    ::usleep(10'000);
  }
  _pid = -1;
  return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

void child_process::kill() {
  if (_pid <= 0) return;
  ::kill(_pid, SIGKILL);
  int status = 0;
  ::waitpid(_pid, &status, 0);
  _pid = -1;
}

void child_process::pause() {
  if (_pid > 0) ::kill(_pid, SIGSTOP);
}

void child_process::resume() {
  if (_pid > 0) ::kill(_pid, SIGCONT);
}

bool child_process::running() {
  if (_pid <= 0) return false;
  int status = 0;
  if (::waitpid(_pid, &status, WNOHANG) == _pid) {
    _pid = -1;
    return false;
  }
  return true;
}

int free_port() {
  const int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (fd < 0) return -1;
  sockaddr_in address{};
  address.sin_family = AF_INET;
  address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  address.sin_port = 0;
  socklen_t length = sizeof address;
  int port = -1;
  if (::bind(fd, reinterpret_cast<sockaddr*>(&address), sizeof address) == 0 &&
      ::getsockname(fd, reinterpret_cast<sockaddr*>(&address), &length) == 0) {
    port = ntohs(address.sin_port);
  }
  ::close(fd);
  return port;
}

}  // namespace magnetar::testing
