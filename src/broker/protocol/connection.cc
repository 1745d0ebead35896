#include "broker/protocol/connection.h"

#include "base/log.h"
#include "base/version.h"
#include "broker/api/protocol_error.h"
#include "broker/protocol/broker_context.h"
#include "broker/protocol/handlers/handlers.h"
#include "broker/topic/consumer.h"
#include "broker/topic/producer.h"
#include "broker/topic/topic.h"
#include "io/run_on.h"
#include "wire/errc.h"
#include "wire/frame.h"

#include <fmt/chrono.h>
#include <fmt/format.h>

#include <chrono>

#include <sys/socket.h>
#include <sys/uio.h>
#include <climits>

namespace magnetar::broker {

namespace {

// Upstream leaves room for the command and metadata beyond maxMessageSize.
constexpr std::size_t frame_padding = 10 * 1024;
// The largest frame taken before CONNECTED: a CONNECT with a token or an AUTH_RESPONSE
// is a few KiB.
constexpr std::size_t connect_frame_limit = 64 * 1024;

std::string now_iso8601() {
  const auto now = std::chrono::system_clock::now();
  return fmt::format("{:%Y-%m-%dT%H:%M:%S}Z", fmt::gmtime(std::chrono::system_clock::to_time_t(now)));
}

}  // namespace

connection::connection(broker_context& broker, io::shard& shard, asio::ip::tcp::socket socket, std::uint64_t id,
                       io::gate::pass alive, std::shared_ptr<tls::ssl::context> tls)
    : _alive(std::move(alive)),
      _broker(broker),
      _shard(shard),
      _socket(std::move(socket)),
      _tls_context(std::move(tls)),
      _id(id),
      _connected_since(now_iso8601()),
      _decoder(connect_frame_limit),
      _writer_wake(shard.executor(), asio::steady_timer::time_point::max()),
      _keep_alive_timer(shard.executor()),
      _handshake_deadline(shard.executor()),
      _auth_refresh_timer(shard.executor()),
      _reader_wake(shard.executor(), asio::steady_timer::time_point::max()) {
  boost::system::error_code ec;
  auto remote = _socket.remote_endpoint(ec);
  _remote_address = ec ? "unknown" : fmt::format("{}:{}", remote.address().to_string(), remote.port());
  if (_tls_context) _tls = std::make_unique<tls::ssl::stream<asio::ip::tcp::socket&>>(_socket, *_tls_context);
}

connection::~connection() = default;

const broker_config& connection::config() const { return _broker.config(); }

void connection::start() {
  auto self = shared_from_this();
  _handshake_deadline.expires_after(config().handshake_timeout);
  _handshake_deadline.async_wait([self](boost::system::error_code ec) {
    if (ec || self->_connected || self->is_closed()) return;
    spdlog::info("connection {} ({}): no CONNECTED within {} s of connecting: closing", self->_id,
                 self->_remote_address, self->config().handshake_timeout.count());
    self->close();
  });
  io::spawn(_shard.executor(), [self] { return self->read_loop(); });
  io::spawn(_shard.executor(), [self] { return self->write_loop(); });
  io::spawn(_shard.executor(), [self] { return self->keep_alive_loop(); });
  if (_broker.authenticator()) io::spawn(_shard.executor(), [self] { return self->auth_refresh_loop(); });
}

void connection::close() {
  if (_closed.exchange(true)) return;
  asio::post(_shard.executor(), [self = shared_from_this()] {
    boost::system::error_code ignored;
    {
      std::lock_guard lock(self->_out_mutex);
      self->_socket_closed = true;
      self->_socket.shutdown(asio::ip::tcp::socket::shutdown_both, ignored);
      self->_socket.close(ignored);
    }
    self->_writer_wake.cancel();
    self->_keep_alive_timer.cancel();
    self->_handshake_deadline.cancel();
    self->_auth_refresh_timer.cancel();
    self->_reader_wake.cancel();
  });
}

void connection::set_principal(auth::principal who, bool supports_auth_refresh) {
  _principal = std::move(who);
  _supports_auth_refresh = supports_auth_refresh;
  _challenge_outstanding = false;
}

void connection::set_connected(std::string client_version, int protocol_version) {
  _connected = true;
  _handshake_deadline.cancel();
  _decoder.set_max_frame_size(config().max_message_size + frame_padding);
  _client_version = std::move(client_version);
  _protocol_version = protocol_version;
}

// ---------------------------------------------------------------------------------------
// Reading

awaitable<bool> connection::tls_handshake() {
  // Bounded by the handshake deadline that start() set: a client that never finishes
  // doesn't hold the socket.
  boost::system::error_code ec;
  co_await _tls->async_handshake(tls::ssl::stream_base::server, asio::redirect_error(asio::use_awaitable, ec));
  if (ec) {
    spdlog::info("connection {} ({}): TLS handshake failed: {}", _id, _remote_address, ec.message());
    co_return false;
  }
  _peer_common_name = tls::peer_common_name(_tls->native_handle());
  co_return true;
}

awaitable<void> connection::read_loop() {
  if (_tls && !co_await tls_handshake()) {
    close();
    release_all();
    _broker.connection_closed(_id);
    co_return;
  }
  for (;;) {
    if (_pending_publishes.load(std::memory_order_relaxed) >=
        static_cast<std::int64_t>(config().max_pending_publish_requests_per_connection)) {
      co_await wait_for_publish_room();
    }
    if (is_closed()) break;
    auto room = _decoder.prepare();
    boost::system::error_code ec;
    std::size_t n = 0;
    if (_tls) {
      n = co_await _tls->async_read_some(asio::buffer(room.data(), room.size()),
                                         asio::redirect_error(asio::use_awaitable, ec));
    } else {
      n = co_await _socket.async_read_some(asio::buffer(room.data(), room.size()),
                                           asio::redirect_error(asio::use_awaitable, ec));
    }
    if (ec) {
      if (ec != asio::error::eof && ec != asio::error::operation_aborted) {
        spdlog::debug("connection {} ({}): read: {}", _id, _remote_address, ec.message());
      }
      break;
    }
    _decoder.commit(n);
    _received_since_tick = true;
    ++_reads;
    bool stop = false;
    for (;;) {
      auto next = _decoder.next();
      if (!next) {
        if (_decoder.failed()) {
          spdlog::warn("connection {} ({}): closing: {}", _id, _remote_address, next.error());
          stop = true;
          break;
        }
        // One bad frame: answer if it names a request, and go on with the next one.
        spdlog::warn("connection {} ({}): dropped a frame: {}", _id, _remote_address, next.error());
        if (!_connected || next.error() == wire::errc::unknown_command) {
          stop = true;
          break;
        }
        continue;
      }
      if (!next.value()) break;
      if (next.value()->command.type() != proto::BaseCommand::SEND) flush_publishes();
      handle_frame(*next.value());
      if (is_closed()) {
        stop = true;
        break;
      }
    }
    flush_publishes();
    if (stop) break;
  }
  close();
  release_all();
  _broker.connection_closed(_id);
}

awaitable<void> connection::wait_for_publish_room() {
  _reader_paused.store(true, std::memory_order_release);
  // Re-check after announcing the pause: a receipt that came in between must not be missed.
  while (!is_closed() && _pending_publishes.load(std::memory_order_acquire) >=
                             static_cast<std::int64_t>(config().max_pending_publish_requests_per_connection)) {
    _reader_wake.expires_at(asio::steady_timer::time_point::max());
    boost::system::error_code ignored;
    co_await _reader_wake.async_wait(asio::redirect_error(asio::use_awaitable, ignored));
  }
  _reader_paused.store(false, std::memory_order_release);
}

void connection::publish_completed() {
  const auto left = _pending_publishes.fetch_sub(1, std::memory_order_acq_rel) - 1;
  if (_reader_paused.load(std::memory_order_acquire) &&
      left < static_cast<std::int64_t>(config().max_pending_publish_requests_per_connection) / 2 + 1) {
    asio::post(_shard.executor(), [self = shared_from_this()] { self->_reader_wake.cancel(); });
  }
}

void connection::handle_frame(wire::frame& frame) {
  const auto type = frame.command.type();
  if (!_connected && type != proto::BaseCommand::CONNECT) {
    spdlog::warn("connection {} ({}): {} before CONNECT: closing", _id, _remote_address,
                 wire::command_name(frame.command));
    close();
    return;
  }
  handlers::dispatch(*this, frame);
}

void connection::release_all() {
  for (auto& [id, p] : std::exchange(_producers, {})) {
    auto owner = p->owner();
    asio::post(owner->shard().executor(), [owner, p] { owner->remove_producer(*p); });
  }
  for (auto& [id, c] : std::exchange(_consumers, {})) {
    auto owner = c->owner();
    asio::post(owner->shard().executor(), [owner, c] { owner->remove_consumer(*c); });
  }
}

void connection::defer_publish(io::shard& target, std::function<void()> publish) {
  for (auto& [shard, publishes] : _deferred_publishes) {
    if (shard == &target) {
      publishes.push_back(std::move(publish));
      return;
    }
  }
  _deferred_publishes.emplace_back(&target, std::vector<std::function<void()>>{std::move(publish)});
}

void connection::flush_publishes() {
  for (auto& [shard, publishes] : _deferred_publishes) {
    if (publishes.empty()) continue;
    asio::post(shard->executor(), [batch = std::move(publishes)]() {
      for (const auto& publish : batch) publish();
    });
    publishes.clear();
  }
}

// ---------------------------------------------------------------------------------------
// Writing

void connection::send(std::vector<std::byte> frame, wire::shared_bytes tail) {
  bool take_over = false;
  {
    std::lock_guard lock(_out_mutex);
    _out.push_back({std::move(frame), std::move(tail)});
    take_over = std::exchange(_writer_idle, false);
  }
  if (!take_over) return;  // a write is under way and takes this frame too
  if (_tls) {
    wake_writer();  // TLS records are written on the connection's shard only
    return;
  }
  // Posted to this thread: it writes after the handler that queued this frame, with
  // everything else that handler queues.
  if (auto* here = io::shard::current()) {
    asio::post(here->executor(), [self = shared_from_this()] { self->write_direct(); });
  } else {
    wake_writer();
  }
}

void connection::wake_writer() {
  asio::post(_shard.executor(), [self = shared_from_this()] { self->_writer_wake.cancel(); });
}

void connection::write_direct() {
  // The frames (and stored entries) are ours to write while _writer_idle is false.
  std::unique_lock lock(_out_mutex);
  std::vector<iovec> parts;
  while (!_out.empty()) {
    if (_socket_closed) {
      _out.clear();
      break;
    }
    parts.clear();
    for (const auto& o : _out) {
      if (parts.size() + 2 > IOV_MAX) break;
      parts.push_back({const_cast<std::byte*>(o.frame.data()), o.frame.size()});
      if (!o.tail.empty()) parts.push_back({const_cast<std::byte*>(o.tail.data()), o.tail.size()});
    }
    msghdr message{};
    message.msg_iov = parts.data();
    message.msg_iovlen = parts.size();
    const auto sent = ::sendmsg(_socket.native_handle(), &message, MSG_DONTWAIT | MSG_NOSIGNAL);
    if (sent < 0 && errno == EINTR) continue;
    if (sent < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) {
      // The socket's buffer is full: the writer waits for room.
      lock.unlock();
      wake_writer();
      return;
    }
    if (sent < 0) {
      _out.clear();
      _writer_idle = true;
      lock.unlock();
      close();
      return;
    }
    // Drop what went out; a frame cut part-way keeps its rest for the next write.
    auto left = static_cast<std::size_t>(sent);
    std::size_t done = 0;
    bool cut = false;
    for (; done < _out.size(); ++done) {
      auto& o = _out[done];
      const auto size = o.frame.size() + o.tail.size();
      if (left >= size) {
        left -= size;
        continue;
      }
      std::vector<std::byte> rest;
      rest.reserve(size - left);
      const auto frame_left = left < o.frame.size() ? o.frame.size() - left : 0;
      rest.insert(rest.end(), o.frame.end() - static_cast<std::ptrdiff_t>(frame_left), o.frame.end());
      const auto tail_from = left > o.frame.size() ? left - o.frame.size() : 0;
      rest.insert(rest.end(), o.tail.span().begin() + static_cast<std::ptrdiff_t>(tail_from), o.tail.span().end());
      o = outgoing{std::move(rest), {}};
      cut = true;
      break;
    }
    _out.erase(_out.begin(), _out.begin() + static_cast<std::ptrdiff_t>(done));
    if (cut) {
      // Cut part-way: the socket took what it had room for; the writer waits for more.
      lock.unlock();
      wake_writer();
      return;
    }
  }
  _writer_idle = true;
}

awaitable<void> connection::write_loop() {
  std::vector<outgoing> batch;
  std::vector<asio::const_buffer> buffers;
  for (;;) {
    {
      std::lock_guard lock(_out_mutex);
      batch.swap(_out);
      if (batch.empty()) _writer_idle = true;
    }
    if (batch.empty()) {
      if (is_closed()) co_return;
      _writer_wake.expires_at(asio::steady_timer::time_point::max());
      boost::system::error_code ignored;
      co_await _writer_wake.async_wait(asio::redirect_error(asio::use_awaitable, ignored));
      continue;
    }
    buffers.clear();
    for (const auto& o : batch) {
      buffers.emplace_back(o.frame.data(), o.frame.size());
      if (!o.tail.empty()) buffers.emplace_back(o.tail.data(), o.tail.size());
    }
    boost::system::error_code ec;
    if (_tls) {
      co_await asio::async_write(*_tls, buffers, asio::redirect_error(asio::use_awaitable, ec));
    } else {
      co_await asio::async_write(_socket, buffers, asio::redirect_error(asio::use_awaitable, ec));
    }
    batch.clear();
    if (ec) {
      close();
      co_return;
    }
  }
}

// ---------------------------------------------------------------------------------------
// Keep-alive

void connection::send_ping() {
  proto::BaseCommand ping;
  ping.set_type(proto::BaseCommand::PING);
  ping.mutable_ping();
  send(wire::encode_command(ping));
}

awaitable<void> connection::auth_refresh_loop() {
  const auto interval = config().authentication_refresh_check;
  while (!is_closed()) {
    _auth_refresh_timer.expires_after(interval);
    boost::system::error_code ec;
    co_await _auth_refresh_timer.async_wait(asio::redirect_error(asio::use_awaitable, ec));
    if (ec || is_closed()) co_return;
    if (!_principal || !_principal->expires_at || std::chrono::system_clock::now() < *_principal->expires_at) continue;
    if (!_supports_auth_refresh || _challenge_outstanding) {
      spdlog::info("connection {} ({}): the credentials of role '{}' expired{}: closing", _id, _remote_address,
                   _principal->role,
                   _challenge_outstanding ? " and the challenge went unanswered" : " (the client can't refresh them)");
      close();
      co_return;
    }
    proto::BaseCommand challenge;
    challenge.set_type(proto::BaseCommand::AUTH_CHALLENGE);
    auto& body = *challenge.mutable_authchallenge();
    body.set_server_version(fmt::format("magnetar-{}", base::version()));
    body.set_protocol_version(_protocol_version);
    body.mutable_challenge()->set_auth_method_name(_principal->method);
    // What upstream's brokers send: the client answers with fresh credentials.
    body.mutable_challenge()->set_auth_data("PulsarAuthRefresh");
    _challenge_outstanding = true;
    send(wire::encode_command(challenge));
  }
}

awaitable<void> connection::keep_alive_loop() {
  const auto interval = config().keep_alive_interval;
  if (interval.count() <= 0) co_return;
  while (!is_closed()) {
    _keep_alive_timer.expires_after(interval);
    boost::system::error_code ec;
    co_await _keep_alive_timer.async_wait(asio::redirect_error(asio::use_awaitable, ec));
    if (ec || is_closed()) co_return;
    if (_received_since_tick) {
      _received_since_tick = false;
      _ping_outstanding = false;
      continue;
    }
    if (_ping_outstanding) {
      spdlog::info("connection {} ({}): no answer to a keep-alive ping: closing", _id, _remote_address);
      close();
      co_return;
    }
    send_ping();
    _ping_outstanding = true;
  }
}

awaitable<bool> connection::check_liveness(std::chrono::milliseconds timeout) {
  auto self = shared_from_this();
  co_return co_await io::run_on(_shard.executor(),
                                [&]() -> awaitable<bool> { return self->check_liveness_here(timeout); });
}

awaitable<bool> connection::check_liveness_here(std::chrono::milliseconds timeout) {
  if (is_closed()) co_return false;
  const auto reads_before = _reads;
  send_ping();
  // Short steps rather than a signal from the read loop: a check is rare (a name taken
  // by a connection that may be dead) and ends at the first answer.
  asio::steady_timer step(_shard.executor());
  for (auto waited = std::chrono::milliseconds(0); waited < timeout; waited += std::chrono::milliseconds(20)) {
    step.expires_after(std::chrono::milliseconds(20));
    boost::system::error_code ec;
    co_await step.async_wait(asio::redirect_error(asio::use_awaitable, ec));
    if (_reads != reads_before) co_return true;
    if (is_closed()) co_return false;
  }
  spdlog::info("connection {} ({}): no answer to a liveness check in {} ms: closing", _id, _remote_address,
               timeout.count());
  close();
  co_return false;
}

namespace {

// The value under `id` in a producer or consumer map, or null.
template <class Map>
typename Map::mapped_type find_by_id(const Map& map, typename Map::key_type id) {
  auto it = map.find(id);
  return it == map.end() ? nullptr : it->second;
}

// The same, taken out of the map.
template <class Map>
typename Map::mapped_type take_by_id(Map& map, typename Map::key_type id) {
  auto node = map.extract(id);
  return node ? std::move(node.mapped()) : nullptr;
}

}  // namespace

std::shared_ptr<producer> connection::producer_of(producer_id id) const { return find_by_id(_producers, id); }
void connection::attach(producer_id id, std::shared_ptr<producer> p) { _producers[id] = std::move(p); }
std::shared_ptr<producer> connection::detach_producer(producer_id id) { return take_by_id(_producers, id); }

std::shared_ptr<consumer> connection::consumer_of(consumer_id id) const { return find_by_id(_consumers, id); }
void connection::attach(consumer_id id, std::shared_ptr<consumer> c) { _consumers[id] = std::move(c); }
std::shared_ptr<consumer> connection::detach_consumer(consumer_id id) { return take_by_id(_consumers, id); }

}  // namespace magnetar::broker
