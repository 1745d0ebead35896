#include "client/connection.h"

#include "auth/client_credentials.h"
#include "client/commands.h"
#include "client/wake_batch.h"
#include "io/await_callback.h"
#include "magnetar/errc.h"

#include <fmt/format.h>
#include <spdlog/spdlog.h>
#include <boost/asio/connect.hpp>

namespace magnetar::client_detail {

namespace {
using steady = std::chrono::steady_clock;
// Request deadlines and keep-alive are checked this often; fine enough for timeouts of
// seconds, and cheap.
constexpr auto tick_interval = std::chrono::milliseconds(100);
}  // namespace

connection::connection(io::shard& shard, const client_config& config, broker_address logical, broker_address physical)
    : _shard(shard),
      _config(config),
      _logical(std::move(logical)),
      _physical(std::move(physical)),
      _socket(shard.executor()),
      _tick(shard.executor()),
      _decoder(config.max_frame_size),
      _max_message_size(config.max_frame_size) {}

connection::~connection() = default;

void connection::start() {
  {
    std::lock_guard lock(_mutex);
    if (_state != state::idle) return;
    _state = state::connecting;
  }
  asio::co_spawn(
      _shard.executor(), [self = shared_from_this()]() { return self->run(); }, asio::detached);
}

void connection::when_ready(ready_callback done) {
  std::unique_lock lock(_mutex);
  if (_state == state::ready) {
    lock.unlock();
    asio::post(_shard.executor(), [self = shared_from_this(), done = std::move(done)] { done(self); });
    return;
  }
  if (_state == state::closed) {
    lock.unlock();
    asio::post(_shard.executor(), [l = _logical, done = std::move(done)] {
      done(fail(client_errc::connect_error, fmt::format("connection to {} is closed", l.to_string())));
    });
    return;
  }
  _ready_waiters.push_back(std::move(done));
}

bool connection::supports_scalable_topics() const {
  std::lock_guard lock(_mutex);
  return _supports_scalable_topics;
}

bool connection::is_closed() const {
  std::lock_guard lock(_mutex);
  return _state == state::closed;
}

std::size_t connection::max_message_size() const {
  std::lock_guard lock(_mutex);
  return _max_message_size;
}

awaitable<result<void>> connection::connect_socket() {
  boost::system::error_code ec;
  asio::ip::tcp::resolver resolver(_shard.executor());
  auto endpoints = co_await resolver.async_resolve(_physical.host, std::to_string(_physical.port),
                                                   asio::redirect_error(asio::use_awaitable, ec));
  if (ec) {
    co_return fail(client_errc::connect_error, fmt::format("resolve {}: {}", _physical.to_string(), ec.message()));
  }
  co_await asio::async_connect(_socket, endpoints, asio::redirect_error(asio::use_awaitable, ec));
  if (ec) {
    co_return fail(client_errc::connect_error, fmt::format("connect {}: {}", _physical.to_string(), ec.message()));
  }
  _socket.set_option(asio::ip::tcp::no_delay(true), ec);
  if (_physical.tls) co_return co_await tls_handshake();
  co_return success();
}

awaitable<result<void>> connection::tls_handshake() {
  tls::client_settings settings{.trust_certs_file = _config.tls_trust_certs_file_path,
                                .allow_insecure_connection = _config.tls_allow_insecure_connection,
                                .hostname_verification = _config.tls_validate_hostname,
                                .certificate_file = _config.tls_certificate_file_path,
                                .key_file = _config.tls_private_key_file_path};
  // The TLS authentication plugin may name the client's certificate instead.
  if (settings.certificate_file.empty() && !_config.auth_plugin.empty()) {
    if (auto credentials = auth::client_credentials::from(_config.auth_plugin, _config.auth_params); credentials) {
      settings.certificate_file = credentials.value().tls_certificate_file();
      settings.key_file = credentials.value().tls_key_file();
    }
  }
  auto context = tls::make_client_context(settings);
  if (!context) co_return fail(client_errc::connect_error, fmt::format("TLS: {}", context.error().detail()));
  _tls_context = std::move(context).value();
  _tls = std::make_unique<tls::ssl::stream<asio::ip::tcp::socket&>>(_socket, *_tls_context);
  if (auto prepared = tls::prepare_client(_tls->native_handle(), settings, _physical.host); !prepared) {
    co_return fail(client_errc::connect_error, fmt::format("TLS: {}", prepared.error().detail()));
  }
  boost::system::error_code ec;
  co_await _tls->async_handshake(tls::ssl::stream_base::client, asio::redirect_error(asio::use_awaitable, ec));
  if (ec) {
    co_return fail(client_errc::connect_error,
                   fmt::format("TLS handshake with {}: {}", _physical.to_string(), ec.message()));
  }
  co_return success();
}

result<std::pair<std::string, std::string>> connection::read_credentials() const {
  if (_config.auth_plugin.empty() && _config.auth_params.empty())
    return std::pair<std::string, std::string>{"none", ""};
  auto credentials = auth::client_credentials::from(_config.auth_plugin, _config.auth_params);
  result<std::string> data = credentials ? credentials.value().data() : result<std::string>(fail(credentials.error()));
  if (!data) {
    return fail(client_errc::authentication_error,
                fmt::format("credentials for {}: {}", _logical.to_string(),
                            data.error().detail().empty() ? data.error().message() : data.error().detail()));
  }
  return std::pair<std::string, std::string>{std::string(credentials.value().method()), std::move(data).value()};
}

void connection::on_auth_challenge(const proto::CommandAuthChallenge&) {
  // The broker asks again when the credentials it holds expire: a token file may hold a
  // fresh one by now. Unreadable credentials are answered with none, which the broker
  // refuses by closing the connection (then reconnects retry).
  auto credentials = read_credentials();
  if (!credentials) {
    spdlog::warn("client: {}", credentials.error().detail());
    write(encode_command(auth_response_command("none", "")));
    return;
  }
  write(encode_command(auth_response_command(credentials.value().first, credentials.value().second)));
}

awaitable<void> connection::run() {
  auto self = shared_from_this();
  _connect_deadline = steady::now() + _config.connection_timeout;
  _last_received = steady::now();
  arm_tick();
  auto connected = co_await connect_socket();
  if (!connected) {
    close_on_shard(connected.error());
    co_return;
  }
  const std::string proxy_to = _logical == _physical ? std::string() : "pulsar://" + _logical.to_string();
  auto credentials = read_credentials();
  if (!credentials) {
    close_on_shard(credentials.error());
    co_return;
  }
  write(encode_command(connect_command(proxy_to, credentials.value().first, credentials.value().second)));
  while (true) {
    auto buffer = _decoder.prepare(4096);
    boost::system::error_code ec;
    std::size_t n = 0;
    if (_tls) {
      n = co_await _tls->async_read_some(asio::buffer(buffer.data(), buffer.size()),
                                         asio::redirect_error(asio::use_awaitable, ec));
    } else {
      n = co_await _socket.async_read_some(asio::buffer(buffer.data(), buffer.size()),
                                           asio::redirect_error(asio::use_awaitable, ec));
    }
    if (ec) {
      close_on_shard(error(client_errc::connection_closed,
                           fmt::format("connection to {}: {}", _logical.to_string(), ec.message())));
      co_return;
    }
    _decoder.commit(n);
    _last_received = steady::now();
    _ping_outstanding = false;
    const wake_batch wakes;  // receivers wake once for all this read's messages
    while (true) {
      auto next = _decoder.next();
      if (!next) {
        if (_decoder.failed()) {
          close_on_shard(error(client_errc::protocol_error,
                               fmt::format("from {}: {}", _logical.to_string(), next.error().message())));
          co_return;
        }
        spdlog::warn("client: dropped a frame from {}: {}", _logical.to_string(), next.error().message());
        continue;
      }
      if (!next.value().has_value()) break;
      on_frame(*next.value());
      if (is_closed()) co_return;
    }
  }
}

void connection::handshake_done(result<void> r) {
  std::vector<ready_callback> waiters;
  {
    std::lock_guard lock(_mutex);
    if (_state != state::connecting) return;
    if (r) _state = state::ready;
    waiters.swap(_ready_waiters);
  }
  if (!r) {
    close_on_shard(r.error());  // fails the waiters taken back below
    for (auto& w : waiters) w(r.error());
    return;
  }
  for (auto& w : waiters) w(shared_from_this());
}

void connection::complete_request(std::uint64_t request_id, result<proto::BaseCommand> r) {
  response_callback done;
  {
    std::lock_guard lock(_mutex);
    auto it = _requests.find(request_id);
    if (it == _requests.end()) return;  // timed out already
    done = std::move(it->second.done);
    _requests.erase(it);
  }
  done(std::move(r));
}

void connection::write(std::vector<std::byte> frame) {
  write(std::make_shared<const std::vector<std::byte>>(std::move(frame)));
}

void connection::write(shared_frame frame) {
  {
    std::lock_guard lock(_write_mutex);
    _write_queue.push_back(std::move(frame));
    if (_writing) return;  // the write in flight takes it when it completes
    _writing = true;
  }
  asio::post(_shard.executor(), [self = shared_from_this()] { self->start_write(); });
}

void connection::start_write() {
  // Everything queued goes out in one gathered write.
  auto batch = std::make_shared<std::vector<shared_frame>>();
  const bool closed = is_closed();  // before _write_mutex: write() may run under _mutex
  {
    std::lock_guard lock(_write_mutex);
    if (_write_queue.empty() || closed) {
      _write_queue.clear();
      _writing = false;
      return;
    }
    while (!_write_queue.empty()) {
      batch->push_back(std::move(_write_queue.front()));
      _write_queue.pop_front();
    }
  }
  std::vector<asio::const_buffer> buffers;
  buffers.reserve(batch->size());
  for (const auto& b : *batch) buffers.emplace_back(b->data(), b->size());
  auto written = [self = shared_from_this(), batch](boost::system::error_code ec, std::size_t) {
    if (ec) {
      self->close_on_shard(error(client_errc::connection_closed,
                                 fmt::format("write to {}: {}", self->_logical.to_string(), ec.message())));
      return;
    }
    self->start_write();
  };
  if (_tls) {
    asio::async_write(*_tls, buffers, std::move(written));
  } else {
    asio::async_write(_socket, buffers, std::move(written));
  }
}

void connection::request(std::uint64_t request_id, const proto::BaseCommand& command, response_callback done) {
  {
    std::unique_lock lock(_mutex);
    if (_state == state::closed) {
      lock.unlock();
      asio::post(_shard.executor(), [l = _logical, done = std::move(done)] {
        done(fail(client_errc::connection_closed, fmt::format("connection to {} is closed", l.to_string())));
      });
      return;
    }
    _requests.emplace(request_id, pending_request{std::move(done), steady::now() + _config.operation_timeout});
  }
  write(encode_command(command));
}

awaitable<result<proto::BaseCommand>> connection::request(std::uint64_t request_id, const proto::BaseCommand& command) {
  auto self = shared_from_this();
  auto start = [self, request_id, &command](std::function<void(result<proto::BaseCommand>)> done) {
    self->request(request_id, command, std::move(done));
  };
  co_return co_await io::await_callback<result<proto::BaseCommand>>(start);
}

void connection::add_producer(std::uint64_t producer_id, std::weak_ptr<producer_listener> listener) {
  std::lock_guard lock(_mutex);
  _producers[producer_id] = std::move(listener);
}
void connection::remove_producer(std::uint64_t producer_id) {
  std::lock_guard lock(_mutex);
  _producers.erase(producer_id);
}
void connection::add_consumer(std::uint64_t consumer_id, std::weak_ptr<consumer_listener> listener) {
  std::lock_guard lock(_mutex);
  _consumers[consumer_id] = std::move(listener);
}
void connection::remove_consumer(std::uint64_t consumer_id) {
  std::lock_guard lock(_mutex);
  _consumers.erase(consumer_id);
}

void connection::add_dag_watch(std::uint64_t session_id, std::weak_ptr<dag_watch_listener> listener) {
  {
    std::lock_guard lock(_mutex);
    if (_state != state::closed) {
      _dag_watches[session_id] = std::move(listener);
      return;
    }
  }
  asio::post(_shard.executor(), [self = shared_from_this(), listener = std::move(listener)] {
    if (auto l = listener.lock()) l->on_connection_closed(self);
  });
}
void connection::remove_dag_watch(std::uint64_t session_id) {
  std::lock_guard lock(_mutex);
  _dag_watches.erase(session_id);
}
void connection::add_assignment_listener(std::uint64_t consumer_id, std::weak_ptr<assignment_listener> listener) {
  {
    std::lock_guard lock(_mutex);
    if (_state != state::closed) {
      _assignment_listeners[consumer_id] = std::move(listener);
      return;
    }
  }
  asio::post(_shard.executor(), [self = shared_from_this(), listener = std::move(listener)] {
    if (auto l = listener.lock()) l->on_connection_closed(self);
  });
}
void connection::remove_assignment_listener(std::uint64_t consumer_id) {
  std::lock_guard lock(_mutex);
  _assignment_listeners.erase(consumer_id);
}

void connection::arm_tick() {
  _tick.expires_after(tick_interval);
  _tick.async_wait([weak = weak_from_this()](boost::system::error_code ec) {
    if (ec) return;
    if (auto self = weak.lock()) self->on_tick();
  });
}

void connection::on_tick() {
  if (is_closed()) return;
  const auto now = steady::now();
  std::vector<response_callback> expired;
  state current;
  {
    std::lock_guard lock(_mutex);
    current = _state;
    for (auto it = _requests.begin(); it != _requests.end();) {
      if (it->second.deadline <= now) {
        expired.push_back(std::move(it->second.done));
        it = _requests.erase(it);
      } else {
        ++it;
      }
    }
  }
  for (auto& done : expired) {
    done(fail(client_errc::timeout,
              fmt::format("no answer from {} within the operation timeout", _logical.to_string())));
  }
  if (current == state::connecting && now >= _connect_deadline) {
    close_on_shard(error(client_errc::timeout, fmt::format("connecting to {} timed out", _physical.to_string())));
    return;
  }
  if (current == state::ready && now - _last_received >= _config.keep_alive_interval) {
    if (_ping_outstanding) {
      close_on_shard(error(client_errc::connection_closed,
                           fmt::format("{} did not answer a keep-alive ping", _logical.to_string())));
      return;
    }
    _ping_outstanding = true;
    _last_received = now;  // the peer gets one more interval to answer
    write(encode_command(ping_command()));
  }
  arm_tick();
}

void connection::close(error why) {
  asio::post(_shard.executor(),
             [self = shared_from_this(), why = std::move(why)]() mutable { self->close_on_shard(std::move(why)); });
}

void connection::close_on_shard(error why) {
  std::vector<ready_callback> waiters;
  std::map<std::uint64_t, pending_request> requests;
  std::map<std::uint64_t, std::weak_ptr<producer_listener>> producers;
  std::map<std::uint64_t, std::weak_ptr<consumer_listener>> consumers;
  std::map<std::uint64_t, std::weak_ptr<dag_watch_listener>> dag_watches;
  std::map<std::uint64_t, std::weak_ptr<assignment_listener>> assignment_listeners;
  {
    std::lock_guard lock(_mutex);
    if (_state == state::closed) return;
    dag_watches.swap(_dag_watches);
    assignment_listeners.swap(_assignment_listeners);
    _state = state::closed;
    waiters.swap(_ready_waiters);
    requests.swap(_requests);
    producers.swap(_producers);
    consumers.swap(_consumers);
  }
  spdlog::debug("client: connection to {} closed: {}", _logical.to_string(), why.message());
  boost::system::error_code ignored;
  _socket.shutdown(asio::ip::tcp::socket::shutdown_both, ignored);
  _socket.close(ignored);
  _tick.cancel();
  {
    std::lock_guard lock(_write_mutex);
    _write_queue.clear();
  }
  auto self = shared_from_this();
  for (auto& w : waiters) w(why);
  for (auto& [id, r] : requests) {
    r.done(error(client_errc::connection_closed, why.message()));
  }
  for (auto& [id, weak] : producers) {
    if (auto p = weak.lock()) p->on_connection_closed(self);
  }
  for (auto& [id, weak] : consumers) {
    if (auto l = weak.lock()) l->on_connection_closed(self);
  }
  for (auto& [id, weak] : dag_watches) {
    if (auto l = weak.lock()) l->on_connection_closed(self);
  }
  for (auto& [id, weak] : assignment_listeners) {
    if (auto l = weak.lock()) l->on_connection_closed(self);
  }
}

}  // namespace magnetar::client_detail
