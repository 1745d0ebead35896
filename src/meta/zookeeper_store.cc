// zookeeper_store: lifecycle, sessions, watch events and reads. Writes are in
// zookeeper_store_write.cc.
#include "meta/zookeeper_store.h"

#include "base/assert.h"
#include "meta/errc.h"
#include "meta/zookeeper_calls.h"
#include "meta/zookeeper_session.h"

#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include <algorithm>

namespace magnetar::meta {

namespace {

// How long a call waits between looks at a reconnecting session.
constexpr auto reconnect_poll = std::chrono::milliseconds(20);

bool connection_broke(int rc) {
  return rc == ZCONNECTIONLOSS || rc == ZOPERATIONTIMEOUT || rc == ZSESSIONEXPIRED || rc == ZINVALIDSTATE ||
         rc == ZCLOSING;
}

// Creates the chroot's nodes with a session of its own (the main session's
// handle is rooted there and can't see above it).
result<void> ensure_chroot(const zookeeper_store::options& opts) {
  MAGNETAR_TRY(s, zk::session::connect({.servers = opts.servers,
                                        .session_timeout = opts.session_timeout,
                                        .connect_timeout = opts.connect_timeout},
                                       {}));
  std::string prefix;
  for (std::size_t from = 1; from <= opts.chroot.size();) {
    auto slash = opts.chroot.find('/', from);
    if (slash == std::string::npos) slash = opts.chroot.size();
    prefix = opts.chroot.substr(0, slash);
    const int rc = zoo_create(s->handle(), prefix.c_str(), "", 0, &ZOO_OPEN_ACL_UNSAFE, 0, nullptr, 0);
    if (rc != ZOK && rc != ZNODEEXISTS) {
      return fail(errc::backend_error, fmt::format("creating the chroot '{}': {}", prefix, zk::rc_name(rc)));
    }
    from = slash + 1;
  }
  return success();
}

}  // namespace

zookeeper_store::zookeeper_store(options opts) : _options(std::move(opts)) {}

zookeeper_store::~zookeeper_store() {
  _stopping.store(true);
  if (_replacer.joinable()) _replacer.join();
  // stop() wasn't awaited: close the sessions rather than leave them to time out.
  std::lock_guard lock(_mutex);
  _sessions.clear();
  _main.reset();
}

error zookeeper_store::error_of(const zk::reply& r, const std::string& what) {
  const auto rc = zk::rc_name(r.rc);
  switch (r.rc) {
    case ZCONNECTIONLOSS:
    case ZOPERATIONTIMEOUT:
      return error(errc::connection_lost,
                   fmt::format("{}: {}: the connection to ZooKeeper broke mid-call, its outcome is unknown", what, rc));
    case ZSESSIONEXPIRED:
    case ZINVALIDSTATE:
    case ZCLOSING: return error(errc::session_expired, fmt::format("{}: {}", what, rc));
    default: return error(errc::backend_error, fmt::format("{}: {}", what, rc));
  }
}

awaitable<result<void>> zookeeper_store::start() {
  auto admitted = _gate.enter();
  if (!admitted) co_return fail(admitted.error());
  spdlog::info("metadata store: connecting to ZooKeeper at '{}{}'", _options.servers, _options.chroot);
  if (!_options.chroot.empty()) {
    auto made = co_await _pool.run([this] { return ensure_chroot(_options); });
    if (!made) co_return fail(made.error());
  }
  auto connected = co_await _pool.run([this]() -> result<std::shared_ptr<zk::session>> {
    MAGNETAR_TRY(s, zk::session::connect(
                        {.servers = _options.servers + _options.chroot,
                         .session_timeout = _options.session_timeout,
                         .connect_timeout = _options.connect_timeout},
                        [this](int type, int state, const std::string& path) { on_main_event(type, state, path); },
                        [this] { return _stopping.load(); }));
    return std::shared_ptr<zk::session>(std::move(s));
  });
  if (!connected) co_return fail(connected.error());
  std::lock_guard lock(_mutex);
  _main = std::move(connected).value();
  spdlog::info("metadata store: ZooKeeper session 0x{:x}", _main->id());
  co_return success();
}

awaitable<void> zookeeper_store::stop() {
  if (_gate.is_closed()) co_return;
  _stopping.store(true);
  co_await _gate.close();
  co_await _pool.run([&]() -> result<void> {
    if (_replacer.joinable()) _replacer.join();
    return success();
  });
  std::shared_ptr<zk::session> main;
  std::map<session_id, std::shared_ptr<zk::session>> sessions;
  {
    std::lock_guard lock(_mutex);
    main = std::exchange(_main, nullptr);
    sessions = std::exchange(_sessions, {});
  }
  co_await _pool.run([&]() -> result<void> {
    sessions.clear();
    main.reset();
    return success();
  });
}

std::optional<zookeeper_store::credentials> zookeeper_store::session_credentials(
    std::optional<session_id> opened) const {
  std::lock_guard lock(_mutex);
  std::shared_ptr<zk::session> s = _main;
  if (opened) {
    auto it = _sessions.find(*opened);
    s = it == _sessions.end() ? nullptr : it->second;
  }
  if (!s) return std::nullopt;
  const auto* client = zoo_client_id(s->handle());
  return credentials{.id = client->client_id, .password = std::string(client->passwd, sizeof client->passwd)};
}

awaitable<result<session_id>> zookeeper_store::open_session() {
  auto admitted = _gate.enter();
  if (!admitted) co_return fail(admitted.error());
  auto id_holder = std::make_shared<std::atomic<std::int64_t>>(0);
  auto connected = co_await _pool.run([this, &id_holder]() -> result<std::shared_ptr<zk::session>> {
    MAGNETAR_TRY(s, zk::session::connect(
                        {.servers = _options.servers + _options.chroot,
                         .session_timeout = _options.session_timeout,
                         .connect_timeout = _options.connect_timeout},
                        [this, id_holder](int type, int state, const std::string&) {
                          if (type == ZOO_SESSION_EVENT) {
                            on_opened_session_event(state, session_id(id_holder->load()));
                          }
                        },
                        [this] { return _stopping.load(); }));
    return std::shared_ptr<zk::session>(std::move(s));
  });
  if (!connected) co_return fail(connected.error());
  const session_id id(connected.value()->id());
  id_holder->store(id.value());
  std::lock_guard lock(_mutex);
  _sessions.emplace(id, std::move(connected).value());
  co_return id;
}

awaitable<result<void>> zookeeper_store::close_session(session_id id) {
  auto admitted = _gate.enter();
  if (!admitted) co_return fail(admitted.error());
  std::shared_ptr<zk::session> closing;
  {
    std::lock_guard lock(_mutex);
    auto it = _sessions.find(id);
    if (it == _sessions.end()) {
      co_return fail(errc::unknown_session, fmt::format("session 0x{:x} is not open", id.value()));
    }
    closing = std::move(it->second);
    _sessions.erase(it);
  }
  auto closed = co_await _pool.run([&]() -> result<void> {
    closing.reset();
    return success();
  });
  if (auto main = co_await main_session()) co_await catch_up(*main.value());
  co_return closed;
}

awaitable<void> zookeeper_store::catch_up(zk::session& main) {
  // The server answers this after it has sent main every event of what
  // committed before it; they run on main's completion thread first.
  co_await zk::exists(main.handle(), "/", false);
}

listener_handle zookeeper_store::register_listener(asio::any_io_executor executor,
                                                   std::function<void(const notification&)> fn) {
  return _listeners.add(std::move(executor), std::move(fn));
}

listener_handle zookeeper_store::register_session_listener(asio::any_io_executor executor,
                                                           std::function<void(const session_event&)> fn) {
  return _session_listeners.add(std::move(executor), std::move(fn));
}

// On the main session's completion thread, in the server's order.
void zookeeper_store::on_main_event(int type, int state, const std::string& path) {
  if (type == ZOO_SESSION_EVENT) {
    std::lock_guard lock(_mutex);
    if (state == ZOO_CONNECTING_STATE && !_main_lost_connection) {
      _main_lost_connection = true;
      _session_listeners.publish({session_event::connection_lost});
    } else if (state == ZOO_CONNECTED_STATE && _main_lost_connection) {
      _main_lost_connection = false;
      _session_listeners.publish({session_event::reconnected});
    } else if (state == ZOO_EXPIRED_SESSION_STATE) {
      _main_lost_connection = false;
      spdlog::warn("metadata store: ZooKeeper session expired; making a new one");
      _session_listeners.publish({session_event::session_lost});
      if (!_stopping.load()) {
        // connect blocks: not here, on the client's own thread. The
        // previous replacement finished when its session connected.
        if (_replacer.joinable()) _replacer.join();
        _replacer = std::thread([this] { replace_expired_main(); });
      }
    }
    return;
  }
  std::lock_guard lock(_mutex);
  if (!_main) return;
  zhandle_t* zh = _main->handle();
  notification n{notification_type::modified, path};
  if (type == ZOO_CREATED_EVENT) {
    n.type = notification_type::created;
    zk::arm_data_watch(zh, path);
  } else if (type == ZOO_CHANGED_EVENT) {
    zk::arm_data_watch(zh, path);
  } else if (type == ZOO_CHILD_EVENT) {
    n.type = notification_type::children_changed;
    zk::arm_child_watch(zh, path);
  } else if (type == ZOO_DELETED_EVENT) {
    n.type = notification_type::deleted;
    _data_watches.erase(path);
    _child_watches.erase(path);
  } else {
    return;  // a watch the server dropped
  }
  _listeners.publish({std::move(n)});
}

void zookeeper_store::on_opened_session_event(int state, session_id id) {
  if (state != ZOO_EXPIRED_SESSION_STATE) return;
  spdlog::warn("metadata store: ZooKeeper session 0x{:x} expired; its ephemeral nodes are gone", id.value());
  _session_listeners.publish({session_event::session_lost});
}

void zookeeper_store::replace_expired_main() {
  std::shared_ptr<zk::session> replacement;
  while (!_stopping.load()) {
    auto connected = zk::session::connect(
        {.servers = _options.servers + _options.chroot,
         .session_timeout = _options.session_timeout,
         .connect_timeout = _options.connect_timeout},
        [this](int type, int state, const std::string& path) { on_main_event(type, state, path); },
        [this] { return _stopping.load(); });
    if (connected) {
      replacement = std::move(connected).value();
      break;
    }
    spdlog::warn("metadata store: {}", connected.error());
  }
  if (!replacement) return;
  std::shared_ptr<zk::session> expired;
  std::set<std::string> data_watches, child_watches;
  {
    std::lock_guard lock(_mutex);
    expired = std::exchange(_main, replacement);
    data_watches = _data_watches;
    child_watches = _child_watches;
  }
  for (const auto& path : data_watches) zk::arm_data_watch(replacement->handle(), path);
  for (const auto& path : child_watches) zk::arm_child_watch(replacement->handle(), path);
  // The server answers this after the watches above are set: listeners told
  // of the new session may count on them. Not under the lock: the client's
  // completion thread takes it for events.
  Stat ignored;
  zoo_exists(replacement->handle(), "/", 0, &ignored);
  spdlog::info("metadata store: new ZooKeeper session 0x{:x}; {} watches re-armed", replacement->id(),
               data_watches.size() + child_watches.size());
  _session_listeners.publish({session_event::session_reestablished});
}

void zookeeper_store::watch_data(zhandle_t* zh, const std::string& path) {
  std::lock_guard lock(_mutex);
  if (_data_watches.insert(path).second) zk::arm_data_watch(zh, path);
}

void zookeeper_store::watch_children(zhandle_t* zh, const std::string& path) {
  std::lock_guard lock(_mutex);
  if (_child_watches.insert(path).second) zk::arm_child_watch(zh, path);
}

void zookeeper_store::rewatch_children(zhandle_t* zh, const std::string& path) {
  std::lock_guard lock(_mutex);
  _child_watches.insert(path);
  zk::arm_child_watch(zh, path);
}

awaitable<result<std::shared_ptr<zk::session>>> zookeeper_store::main_session() {
  const auto deadline = std::chrono::steady_clock::now() + _options.operation_timeout;
  asio::steady_timer timer(co_await asio::this_coro::executor);
  for (;;) {
    std::shared_ptr<zk::session> s;
    {
      std::lock_guard lock(_mutex);
      s = _main;
    }
    if (!s) co_return fail(errc::not_started, fmt::format("ZooKeeper store at '{}'", _options.servers));
    if (s->connected()) co_return s;
    if (std::chrono::steady_clock::now() >= deadline || _stopping.load()) {
      co_return fail(errc::unavailable, fmt::format("no connection to ZooKeeper at '{}' within {} ms", _options.servers,
                                                    _options.operation_timeout.count()));
    }
    timer.expires_after(reconnect_poll);
    co_await timer.async_wait(asio::use_awaitable);
  }
}

template <class Call>
awaitable<result<zk::reply>> zookeeper_store::with_retry(Call call) {
  const auto deadline = std::chrono::steady_clock::now() + _options.operation_timeout;
  asio::steady_timer timer(co_await asio::this_coro::executor);
  for (;;) {
    auto s = co_await main_session();
    if (!s) co_return fail(s.error());
    auto r = co_await call(s.value()->handle());
    if (!connection_broke(r.rc) || std::chrono::steady_clock::now() >= deadline) co_return r;
    timer.expires_after(reconnect_poll);
    co_await timer.async_wait(asio::use_awaitable);
  }
}

awaitable<result<std::optional<versioned_value>>> zookeeper_store::do_get(std::string path) {
  auto admitted = _gate.enter();
  if (!admitted) co_return fail(admitted.error());
  auto r = co_await with_retry([&](zhandle_t* zh) { return zk::get(zh, path, true); });
  if (!r) co_return fail(r.error());
  if (r.value().rc == ZNONODE) co_return std::nullopt;
  if (r.value().rc != ZOK) co_return fail(error_of(r.value(), fmt::format("get '{}'", path)));
  {
    std::lock_guard lock(_mutex);
    _data_watches.insert(path);
  }
  co_return versioned_value{std::move(r.value().data), zk::to_stat(path, r.value().st)};
}

awaitable<result<bool>> zookeeper_store::do_exists(std::string path) {
  auto admitted = _gate.enter();
  if (!admitted) co_return fail(admitted.error());
  auto r = co_await with_retry([&](zhandle_t* zh) { return zk::exists(zh, path, true); });
  if (!r) co_return fail(r.error());
  if (r.value().rc != ZOK && r.value().rc != ZNONODE)
    co_return fail(error_of(r.value(), fmt::format("exists '{}'", path)));
  {
    std::lock_guard lock(_mutex);
    _data_watches.insert(path);
  }
  co_return r.value().rc == ZOK;
}

awaitable<result<std::vector<std::string>>> zookeeper_store::do_children(std::string path) {
  auto admitted = _gate.enter();
  if (!admitted) co_return fail(admitted.error());
  auto r = co_await with_retry([&](zhandle_t* zh) { return zk::get_children(zh, path, true); });
  if (!r) co_return fail(r.error());
  if (r.value().rc == ZNONODE) co_return std::vector<std::string>{};
  if (r.value().rc != ZOK) co_return fail(error_of(r.value(), fmt::format("children of '{}'", path)));
  {
    std::lock_guard lock(_mutex);
    _child_watches.insert(path);
  }
  std::sort(r.value().names.begin(), r.value().names.end());
  co_return std::move(r.value().names);
}

}  // namespace magnetar::meta
