#include "meta/zookeeper_session.h"

#include "meta/errc.h"

#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

namespace magnetar::meta::zk {

namespace {

// The client library logs every failed connect attempt as an error; ours says
// once in a while which servers it is still trying (connect below), so the
// library's lines go to the debug log.
void library_log(const char* message) { spdlog::debug("zookeeper client: {}", message); }

// How often connect() says it is still waiting.
constexpr auto progress_interval = std::chrono::seconds(5);

}  // namespace

result<std::unique_ptr<session>> session::connect(const options& opts, event_fn on_event,
                                                  const std::function<bool()>& stopping) {
  static const bool quiet = [] {
    zoo_set_debug_level(ZOO_LOG_LEVEL_WARN);
    return true;
  }();
  (void)quiet;
  std::unique_ptr<session> s(new session(std::move(on_event)));
  const auto timeout_ms = static_cast<int>(opts.session_timeout.count());
  s->_zh = zookeeper_init2(opts.servers.c_str(), &session::watcher, timeout_ms, nullptr, s.get(), 0, library_log);
  if (!s->_zh) {
    return fail(errc::backend_error,
                fmt::format("ZooKeeper client for '{}' could not start: {}", opts.servers, std::strerror(errno)));
  }
  const auto start = std::chrono::steady_clock::now();
  const auto deadline = start + opts.connect_timeout;
  auto next_report = start + progress_interval;
  while (!s->wait_connected(std::min(deadline, next_report))) {
    const auto now = std::chrono::steady_clock::now();
    if (s->expired() || now >= deadline || (stopping && stopping())) {
      return fail(errc::unavailable,
                  fmt::format("no ZooKeeper session with '{}' after {} s", opts.servers,
                              std::chrono::duration_cast<std::chrono::seconds>(now - start).count()));
    }
    if (now >= next_report) {
      spdlog::warn("metadata store: still trying ZooKeeper at '{}' ({} s so far)", opts.servers,
                   std::chrono::duration_cast<std::chrono::seconds>(now - start).count());
      next_report = now + progress_interval;
    }
  }
  return s;
}

session::~session() {
  if (_zh) zookeeper_close(_zh);
}

std::int64_t session::id() const {
  const auto* client = zoo_client_id(_zh);
  return client ? client->client_id : 0;
}

bool session::connected() const {
  std::lock_guard lock(_mutex);
  return _state == ZOO_CONNECTED_STATE;
}

bool session::expired() const {
  std::lock_guard lock(_mutex);
  return _state == ZOO_EXPIRED_SESSION_STATE || _state == ZOO_AUTH_FAILED_STATE;
}

bool session::wait_connected(std::chrono::steady_clock::time_point deadline) const {
  std::unique_lock lock(_mutex);
  _changed.wait_until(lock, deadline, [&] {
    return _state == ZOO_CONNECTED_STATE || _state == ZOO_EXPIRED_SESSION_STATE || _state == ZOO_AUTH_FAILED_STATE;
  });
  return _state == ZOO_CONNECTED_STATE;
}

void session::watcher(zhandle_t*, int type, int state, const char* path, void* context) {
  auto* self = static_cast<session*>(context);
  if (type == ZOO_SESSION_EVENT) {
    {
      std::lock_guard lock(self->_mutex);
      self->_state = state;
    }
    self->_changed.notify_all();
  }
  if (self->_on_event) self->_on_event(type, state, path ? std::string(path) : std::string());
}

}  // namespace magnetar::meta::zk
