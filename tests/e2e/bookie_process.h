// bookie_process: a `magnetar bookie` child process for end-to-end tests, with its
// own directories and a fixed port (its id), registered in the ZooKeeper server
// the test started. It is killed with the object (child_process), so a failing
// test leaves no bookie behind.
#pragma once

#include "http/client.h"
#include "testing/child_process.h"

#include <fmt/format.h>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

namespace magnetar::e2e {

// One `magnetar bookie` with its own directories and a fixed port (its id).
class bookie_process {
 public:
  // `extra_config` adds bookkeeper.conf lines.
  bookie_process(std::string directory, const std::string& zookeeper, int port = magnetar::testing::free_port(),
                 const std::string& extra_config = "")
      : _directory(std::move(directory)), _port(port) {
    std::filesystem::create_directories(data_directory());
    std::ofstream(_directory + "/bookkeeper.conf")
        << "metadataServiceUri=zk+null://" << zookeeper << "/ledgers\n"
        << "bookiePort=" << _port << "\nadvertisedAddress=127.0.0.1\nlisteningInterface=127.0.0.1\n"
        << "journalDirectories=" << data_directory() << "/journal\nledgerDirectories=" << data_directory()
        << "/ledgers\n"
        << "zkTimeout=4000\nserverNumIOThreads=1\nprometheusStatsHttpPort=0\n"
        << extra_config;
  }
  // Starts and waits for the ready file; false when the process exits first.
  // `wrapper` goes before the command (e.g. to give it a mount namespace).
  bool start(std::vector<std::string> wrapper = {}) {
    const auto ready = _directory + "/ready.json";
    std::filesystem::remove(ready);
    wrapper.insert(wrapper.end(),
                   {MAGNETAR_BINARY, "bookie", "--config", _directory + "/bookkeeper.conf", "--ready-file", ready});
    _process.start(wrapper, _directory + "/bookie.log");
    if (!magnetar::testing::wait_until([&] { return std::filesystem::exists(ready) || !_process.running(); }) ||
        !_process.running()) {
      return false;
    }
    std::ifstream in(ready);
    _http_port = nlohmann::json::parse(in, nullptr, false).value("httpPort", 0);
    return true;
  }
  // GET on the bookie's HTTP port.
  http::reply get(const std::string& target) const {
    auto reply =
        http::call(http::url{.host = "127.0.0.1", .port = static_cast<std::uint16_t>(_http_port)}, "GET", target);
    EXPECT_TRUE(reply) << reply.error();
    return reply ? std::move(reply).value() : http::reply{};
  }
  void kill() { _process.kill(); }
  // SIGSTOP and SIGCONT: a bookie that answers nothing, its ZooKeeper session included.
  void pause() { _process.pause(); }
  void resume() { _process.resume(); }
  bool running() { return _process.running(); }
  std::string id() const { return fmt::format("127.0.0.1:{}", _port); }
  std::string log() const {
    std::ifstream in(_directory + "/bookie.log");
    return std::string(std::istreambuf_iterator<char>(in), {});
  }
  const std::string& directory() const { return _directory; }
  // Where its journal and ledgers live (a mount point for a test's small disk).
  std::string data_directory() const { return _directory + "/data"; }

 private:
  std::string _directory;
  int _port;
  int _http_port = 0;
  magnetar::testing::child_process _process;
};

}  // namespace magnetar::e2e
