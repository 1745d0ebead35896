// standalone_process: a `magnetar standalone` child process for end-to-end tests.
//
// Starts the binary on ephemeral ports over a data directory and waits for its ready
// file (which names the ports it bound). stop() ends it with SIGTERM (graceful) and
// kill() with SIGKILL (a crash: nothing is flushed or closed); start() again on the same
// directory recovers what was acknowledged. Only the process this object started is
// ever signalled. One thread at a time, and the thread that starts it must outlive the
// process (it dies with that thread).
#pragma once

#include <gtest/gtest.h>

#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>
#include <chrono>
#include <csignal>
#include <filesystem>
#include <fstream>
#include <regex>
#include <string>
#include <thread>
#include <vector>

extern char** environ;

namespace magnetar::e2e {

class standalone_process {
 public:
  // `extra_args` follow the standalone's own (e.g. --config FILE). `subcommand` "broker"
  // starts a cluster's broker instead, which keeps no data directory of its own.
  standalone_process(std::string binary, std::filesystem::path directory, std::vector<std::string> extra_args = {},
                     std::string subcommand = "standalone")
      : _binary(std::move(binary)),
        _directory(std::move(directory)),
        _extra_args(std::move(extra_args)),
        _subcommand(std::move(subcommand)) {}
  ~standalone_process() {
    if (_pid > 0) kill_now();
  }

  // The first start binds ephemeral ports; later ones bind the same again, so clients
  // that know the service URL reconnect to the restarted broker.
  void start() {
    ASSERT_LT(_pid, 0) << "already running";
    const auto ready = _directory / "ready.json";
    std::filesystem::remove(ready);
    std::vector<std::string> args{_binary,         _subcommand,
                                  "--broker-port", std::to_string(_broker_port),
                                  "--web-port",    std::to_string(_web_port),
                                  "--ready-file",  ready.string(),
                                  "--log-file",    log_path()};
    if (_subcommand == "standalone") args.insert(args.end(), {"--data-dir", (_directory / "data").string()});
    args.insert(args.end(), _extra_args.begin(), _extra_args.end());
    std::vector<char*> argv;
    for (auto& a : args) argv.push_back(a.data());
    argv.push_back(nullptr);
    const pid_t test = ::getpid();
    _pid = ::fork();
    ASSERT_GE(_pid, 0) << "fork failed";
    if (_pid == 0) {
      // The broker dies with the test (SIGKILL when the test's thread ends): a test binary
      // that crashes or is killed by a timeout leaves no broker behind to hold CPU and
      // ports in the runs after it. Only async-signal-safe calls between fork and exec.
      ::prctl(PR_SET_PDEATHSIG, SIGKILL);
      if (::getppid() != test) ::_exit(127);  // the test was already gone
      ::execve(argv[0], argv.data(), environ);
      ::_exit(127);
    }
    // Wait for the ready file: the ports are only known then.
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(60);
    while (!std::filesystem::exists(ready)) {
      int status = 0;
      ASSERT_EQ(waitpid(_pid, &status, WNOHANG), 0) << "the " << _subcommand << " exited; see " << log_path();
      ASSERT_LT(std::chrono::steady_clock::now(), deadline) << "the standalone did not become ready";
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
    std::ifstream in(ready);
    const std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    std::smatch m;
    ASSERT_TRUE(
        std::regex_search(text, m, std::regex(R"re("brokerServiceUrl": "([^"]+)".*"webServiceUrl": "([^"]+)")re")))
        << text;
    _service_url = m[1];
    _web_url = m[2];
    if (std::regex_search(text, m,
                          std::regex(R"re("brokerServiceUrlTls": "([^"]*)".*"webServiceUrlTls": "([^"]*)")re"))) {
      _service_url_tls = m[1];
      _web_url_tls = m[2];
    }
    _broker_port = std::stoi(_service_url.substr(_service_url.rfind(':') + 1));
    _web_port = std::stoi(_web_url.substr(_web_url.rfind(':') + 1));
  }

  // SIGTERM and wait: a graceful stop. The exit status must be success.
  void stop() {
    ASSERT_GT(_pid, 0);
    ::kill(_pid, SIGTERM);
    int status = 0;
    ASSERT_EQ(waitpid(_pid, &status, 0), _pid);
    _pid = -1;
    EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << "status " << status;
  }

  // SIGKILL and wait: a crash.
  void kill_now() {
    ::kill(_pid, SIGKILL);
    int status = 0;
    waitpid(_pid, &status, 0);
    _pid = -1;
  }

  // SIGSTOP / SIGCONT: a broker that hangs (its ZooKeeper session expires meanwhile).
  void pause() { ::kill(_pid, SIGSTOP); }
  void resume() { ::kill(_pid, SIGCONT); }

  const std::string& service_url() const { return _service_url; }
  std::string log_path() const { return (_directory / (_subcommand + ".log")).string(); }
  bool running() const { return _pid > 0; }
  const std::string& web_url() const { return _web_url; }
  // pulsar+ssl:// and https:// with brokerServicePortTls/webServicePortTls; else "".
  const std::string& service_url_tls() const { return _service_url_tls; }
  const std::string& web_url_tls() const { return _web_url_tls; }

 private:
  std::string _binary;
  std::filesystem::path _directory;
  std::vector<std::string> _extra_args;
  std::string _subcommand;
  pid_t _pid = -1;
  std::string _service_url;
  std::string _web_url;
  std::string _service_url_tls;
  std::string _web_url_tls;
  int _broker_port = 0;
  int _web_port = 0;
};

}  // namespace magnetar::e2e
