#include "client/st/dag_watch.h"

#include "client/commands.h"
#include "client/server_error.h"
#include "client/st/st_commands.h"
#include "io/await_callback.h"
#include "magnetar/errc.h"

#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include <atomic>

namespace magnetar::st::detail {

namespace {
// Session ids are unique per process (as upstream's): a connection shared by several
// clients routes updates by them.
std::atomic<std::uint64_t> next_session_id{1};
}  // namespace

dag_watch::dag_watch(std::shared_ptr<client_detail::client_impl> client, std::string topic, bool create_if_missing)
    : _client(std::move(client)),
      _topic(std::move(topic)),
      _create_if_missing(create_if_missing),
      _session_id(next_session_id.fetch_add(1)),
      _home(_client->next_shard()),
      _backoff(_client->config().initial_backoff, _client->config().max_backoff),
      _reconnect_timer(_home.executor()),
      _start_timer(_home.executor()) {}

dag_watch::~dag_watch() = default;

void dag_watch::set_listener(listener l) {
  std::lock_guard lock(_mutex);
  _listener = std::move(l);
}

layout_ptr dag_watch::layout() const {
  std::lock_guard lock(_mutex);
  return _layout;
}

std::string dag_watch::topic_name() const {
  std::lock_guard lock(_mutex);
  return _resolved.empty() ? _topic : _resolved;
}

awaitable<result<layout_ptr>> dag_watch::start() {
  auto self = shared_from_this();
  auto begin = [self](start_callback done) {
    {
      std::lock_guard lock(self->_mutex);
      if (self->_closed) {
        done(fail(client_errc::already_closed, "the layout watch is closed"));
        return;
      }
      self->_first = std::move(done);
      self->_start_timer.expires_after(self->_client->config().operation_timeout);
      self->_start_timer.async_wait([weak = self->weak_from_this()](boost::system::error_code ec) {
        if (ec) return;
        if (auto s = weak.lock()) {
          s->fail_start(
              error(client_errc::timeout, fmt::format("no layout of {} within the operation timeout", s->_topic)));
        }
      });
    }
    asio::co_spawn(
        self->_home.executor(),
        [self]() -> awaitable<void> {
          auto r = co_await self->attach();
          if (!r) self->fail_start(r.error());
        },
        asio::detached);
  };
  co_return co_await io::await_callback<result<layout_ptr>>(begin);
}

awaitable<result<void>> dag_watch::attach() {
  MAGNETAR_CO_TRY(c, co_await _client->connection_for(lookup_name_of(_topic), _session_id));
  if (!c->supports_scalable_topics()) {
    co_return fail(client_errc::unsupported_version,
                   fmt::format("broker {} does not support scalable topics", c->logical_address().to_string()));
  }
  {
    std::lock_guard lock(_mutex);
    if (_closed) co_return fail(client_errc::already_closed, "the layout watch is closed");
    _connection = c;
  }
  c->add_dag_watch(_session_id, weak_from_this());
  c->write(client_detail::encode_command(scalable_lookup_command(_session_id, _topic, _create_if_missing)));
  co_return success();
}

void dag_watch::on_scalable_topic_update(const std::shared_ptr<client_detail::connection>& c,
                                         const proto::CommandScalableTopicUpdate& update) {
  layout_ptr now;
  layout_ptr before;
  start_callback first;
  std::optional<error> start_failure;
  {
    std::lock_guard lock(_mutex);
    if (_closed || c != _connection) return;
    const bool initial = _layout == nullptr;
    if (update.has_error()) {
      auto e = client_detail::server_failure(update.error(), update.message(), fmt::format("layout of {}", _topic));
      if (e == client_errc::broker_error) {
        e = error(client_errc::lookup_error, e.detail());
      }
      if (!initial) {
        // Recovery goes through the connection: the broker closes it if it must.
        spdlog::warn("client: layout watch {} of {}: {}", _session_id, _topic, e.message());
        return;
      }
      start_failure = std::move(e);
    } else if (!update.has_dag()) {
      spdlog::warn("client: layout watch {} of {}: an update without layout or error; ignored", _session_id, _topic);
      return;
    } else {
      if (update.has_resolved_topic_name() && !update.resolved_topic_name().empty()) {
        _resolved = update.resolved_topic_name();
      }
      auto made = segment_layout::from_proto(update.dag(), _resolved.empty() ? _topic : _resolved);
      if (!made) {
        if (!initial) {
          spdlog::warn("client: layout watch {} of {}: {}; the last layout is kept", _session_id, _topic,
                       made.error().message());
          return;
        }
        start_failure = made.error();
      } else {
        before = _layout ? _layout : std::make_shared<const segment_layout>();
        now = std::make_shared<const segment_layout>(std::move(made).value());
        _layout = now;
        _backoff.reset();
        first = std::move(_first);
        _first = nullptr;
        if (first) _start_timer.cancel();
      }
    }
  }
  if (start_failure) {
    fail_start(*start_failure);
    return;
  }
  if (first) first(now);
  deliver(now, before);
}

void dag_watch::deliver(const layout_ptr& now, const layout_ptr& before) {
  std::lock_guard serial(_deliver_mutex);
  listener l;
  {
    std::lock_guard lock(_mutex);
    if (_closed) return;
    l = _listener;
  }
  if (l) l(now, before);
}

void dag_watch::on_connection_closed(const std::shared_ptr<client_detail::connection>& c) {
  bool before_first = false;
  {
    std::lock_guard lock(_mutex);
    if (_closed || c != _connection) return;
    _connection = nullptr;
    if (_layout) {
      spdlog::info("client: layout watch {} of {}: connection closed; reconnecting", _session_id, _topic);
      schedule_reconnect_locked();
    } else {
      before_first = true;
    }
  }
  if (before_first) {
    fail_start(error(client_errc::connect_error,
                     fmt::format("the connection closed while waiting for the layout of {}", _topic)));
  }
}

void dag_watch::schedule_reconnect_locked() {
  if (_reconnect_scheduled || _closed) return;
  _reconnect_scheduled = true;
  _reconnect_timer.expires_after(_backoff.next());
  _reconnect_timer.async_wait([weak = weak_from_this()](boost::system::error_code ec) {
    if (ec) return;
    auto self = weak.lock();
    if (!self) return;
    asio::co_spawn(
        self->_home.executor(), [self]() { return self->reconnect(); }, asio::detached);
  });
}

awaitable<void> dag_watch::reconnect() {
  {
    std::lock_guard lock(_mutex);
    _reconnect_scheduled = false;
    if (_closed || _connection) co_return;
  }
  auto r = co_await attach();
  if (r) co_return;
  std::lock_guard lock(_mutex);
  if (_closed) co_return;
  // Another broker may serve it (or support scalable topics): keep trying while open.
  spdlog::info("client: layout watch {} of {}: reconnect failed: {}", _session_id, _topic, r.error().message());
  schedule_reconnect_locked();
}

void dag_watch::fail_start(const error& e) {
  start_callback first;
  std::shared_ptr<client_detail::connection> c;
  {
    std::lock_guard lock(_mutex);
    if (!_first) return;
    first = std::move(_first);
    _first = nullptr;
    _closed = true;
    _start_timer.cancel();
    c = std::move(_connection);
  }
  if (c) {
    c->remove_dag_watch(_session_id);
    c->write(client_detail::encode_command(scalable_close_command(_session_id)));
  }
  first(e);
}

void dag_watch::close() {
  start_callback first;
  std::shared_ptr<client_detail::connection> c;
  {
    std::lock_guard lock(_mutex);
    if (_closed) return;
    _closed = true;
    first = std::move(_first);
    _first = nullptr;
    _start_timer.cancel();
    _reconnect_timer.cancel();
    c = std::move(_connection);
  }
  if (c) {
    c->remove_dag_watch(_session_id);
    c->write(client_detail::encode_command(scalable_close_command(_session_id)));
  }
  if (first) first(fail(client_errc::already_closed, "the layout watch is closed"));
}

}  // namespace magnetar::st::detail
