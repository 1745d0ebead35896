// zookeeper_server: a real ZooKeeper server (Debian's zookeeper package, run
// with the system's java) that a test starts itself on a free port of
// 127.0.0.1, with its data in a directory the test owns. Never a system
// service: each test's server is its own process, and dies with the test.
//
// start() again after stop() or kill() serves the same port and data, so
// clients reconnect to it within their sessions. Used from one thread.
#pragma once

#include "testing/child_process.h"

#include <string>

namespace magnetar::testing {

class zookeeper_server {
 public:
  // Why no server can start on this machine (no java, no zookeeper.jar), or
  // empty when one can: tests skip with this message.
  static std::string unavailable_reason();

  // `directory` holds zoo.cfg, the data and zookeeper.log; it must exist.
  explicit zookeeper_server(std::string directory);

  // Starts the server and waits until it answers; false with the log's tail
  // in `why` when it doesn't within a minute.
  bool start(std::string* why = nullptr);
  void stop() { _process.stop(); }
  void kill() { _process.kill(); }
  void pause() { _process.pause(); }
  void resume() { _process.resume(); }

  int port() const { return _port; }
  // host:port, what a client's connect string names.
  std::string address() const;
  const std::string& log_file() const { return _log; }

 private:
  std::string _directory;
  std::string _log;
  int _port;
  child_process _process;
};

// The answer of a ZooKeeper four-letter command ("srvr", "mntr") on port, or
// empty when nothing answers.
std::string four_letter_word(int port, const std::string& command);

}  // namespace magnetar::testing
