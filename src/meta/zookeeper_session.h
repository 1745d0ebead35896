// zookeeper_session: one libzookeeper-mt handle, which is one ZooKeeper
// session, and the state its watcher reports.
//
// connect() makes the handle and waits until the session is established,
// logging which servers it is still trying; the client library itself
// retries the servers with its own backoff. The handle's watcher forwards
// every event (session state changes and fired watches) to `on_event` on the
// client's completion thread, in the order the server sent them. The
// destructor closes the session (its ephemeral nodes go at once) and blocks
// until the server answers or the client gives up: never destroy one on the
// completion thread or a shard.
// Thread-safety: any thread.
#pragma once

#include "base/result.h"

#include <zookeeper/zookeeper.h>

#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <string>

namespace magnetar::meta::zk {

class session {
 public:
  // type: ZOO_SESSION_EVENT or a watch's event type; state: ZOO_*_STATE.
  using event_fn = std::function<void(int type, int state, const std::string& path)>;

  struct options {
    std::string servers;  // host:port[,host:port...][/chroot]
    std::chrono::milliseconds session_timeout{30'000};
    std::chrono::milliseconds connect_timeout{60'000};
  };

  // Fails with errc::unavailable once connect_timeout passes without a
  // session, naming the servers tried; `stopping` returning true ends the
  // wait early.
  static result<std::unique_ptr<session>> connect(const options& opts, event_fn on_event,
                                                  const std::function<bool()>& stopping = {});
  ~session();
  session(const session&) = delete;
  session& operator=(const session&) = delete;

  zhandle_t* handle() const { return _zh; }
  // ZooKeeper's session id (what ephemeral nodes record as their owner).
  std::int64_t id() const;
  bool connected() const;
  bool expired() const;
  // Blocks until connected (true), or expired or past `deadline` (false).
  bool wait_connected(std::chrono::steady_clock::time_point deadline) const;

 private:
  session(event_fn on_event) : _on_event(std::move(on_event)) {}
  static void watcher(zhandle_t* zh, int type, int state, const char* path, void* context);

  event_fn _on_event;
  zhandle_t* _zh = nullptr;
  mutable std::mutex _mutex;
  mutable std::condition_variable _changed;
  int _state = 0;
};

}  // namespace magnetar::meta::zk
