// tcp_relay: forwards TCP connections from a port of 127.0.0.1 to a target,
// and can freeze them: bytes stop moving both ways while every connection
// stays open, as when a network path goes silent. Tests use it to let a
// server time a client's session out while the client is still connected
// (what a ZooKeeper session expiry is), deterministically.
// Not an impairment tool for scenarios: those act on the kernel's packet path.
// Thread-safety: freeze/thaw from any thread; one relay thread does the work.
#pragma once

#include <atomic>
#include <string>
#include <thread>

namespace magnetar::testing {

class tcp_relay {
 public:
  explicit tcp_relay(int target_port);
  ~tcp_relay();
  tcp_relay(const tcp_relay&) = delete;
  tcp_relay& operator=(const tcp_relay&) = delete;

  int port() const { return _port; }
  std::string address() const { return "127.0.0.1:" + std::to_string(_port); }
  void freeze() { _frozen.store(true); }
  void thaw() { _frozen.store(false); }

 private:
  void run();

  int _target_port;
  int _listener = -1;
  int _port = 0;
  std::atomic<bool> _frozen{false};
  std::atomic<bool> _stopping{false};
  std::thread _thread;
};

}  // namespace magnetar::testing
