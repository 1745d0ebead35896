#include "bookie/bookie_server.h"

#include "bookie/bookie_requests.h"
#include "io/block_on.h"
#include "io/frame_reader.h"
#include "io/oneshot_signal.h"
#include "io/run_on.h"
#include "proto/bookie_protocol.pb.h"

#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include <deque>
#include <vector>

namespace magnetar::bookie {

namespace bp = bookie_protocol;

namespace {
constexpr std::size_t large_answer_bytes = 64 * 1024;
}  // namespace

// One client's connection, on one shard; everything here runs on that shard.
class bookie_connection : public std::enable_shared_from_this<bookie_connection> {
 public:
  bookie_connection(bookie_server& server, asio::ip::tcp::socket socket, io::gate::pass alive)
      : _server(server), _socket(std::move(socket)), _alive(std::move(alive)) {
    ++_server._counters[bookie_server::connections];
  }
  ~bookie_connection() { --_server._counters[bookie_server::connections]; }

  awaitable<void> read_loop() {
    auto self = shared_from_this();
    if (auto refused = co_await choose_transport(); !refused.empty()) {
      spdlog::warn("bookie: closing a connection from {}: {}", peer(), refused);
      close();
      co_return;
    }
    io::frame_reader frames(_server._options.max_frame_bytes);
    for (;;) {
      result<std::string_view> frame = fail(std::make_error_code(std::errc::not_connected), "");
      if (_tls) {
        frame = co_await frames.next(*_tls);
      } else {
        frame = co_await frames.next(_socket);
      }
      if (!frame) {
        if (frame.error() == std::errc::message_size) refuse(std::string(frame.error().detail()));
        break;
      }
      bp::request request;
      if (!request.ParseFromArray(frame.value().data(), static_cast<int>(frame.value().size()))) {
        refuse("the frame is not a bookie request");
        break;
      }
      while (_in_flight >= _server._options.max_in_flight_per_connection) {
        _room = std::make_unique<io::oneshot_signal>(_socket.get_executor());
        co_await _room->wait();
      }
      ++_in_flight;
      io::spawn(_socket.get_executor(), [self, request = std::move(request)]() mutable -> awaitable<void> {
        const auto start = std::chrono::steady_clock::now();
        const auto kind = request.has_add()                               ? bookie_server::request_kind::add
                          : request.has_read() && !request.read().fence() ? bookie_server::request_kind::read
                                                                          : bookie_server::request_kind::other;
        const auto added = kind == bookie_server::request_kind::add ? request.add().body().size() : 0;
        auto response = co_await serve_request(self->_server._bookie, self->context(), std::move(request));
        self->_server.count(kind, added, response, std::chrono::steady_clock::now() - start);
        self->send(response);
        --self->_in_flight;
        if (self->_room) std::exchange(self->_room, nullptr)->fire();
      });
    }
    _reading_done = true;
    if (!_writing) close();
  }

  asio::any_io_executor executor() { return _socket.get_executor(); }

  void close() {
    boost::system::error_code ignored;
    _closed = true;
    _socket.shutdown(asio::ip::tcp::socket::shutdown_both, ignored);
    _socket.close(ignored);
  }

 private:
  // Plaintext or TLS, by the client's first byte (a TLS record starts with 0x16, a
  // frame with its length's high byte, 0 under 16 MiB); "" when the connection may go
  // on, else why not. With TLS configured the client has the handshake timeout to send
  // that byte and finish its handshake.
  awaitable<std::string> choose_transport() {
    const auto& options = _server._options;
    if (!options.tls) co_return std::string();
    asio::steady_timer deadline(_socket.get_executor(), options.tls_handshake_timeout);
    deadline.async_wait([self = shared_from_this()](boost::system::error_code ec) {
      if (!ec && !self->_transport_chosen) self->close();
    });
    boost::system::error_code ec;
    co_await _socket.async_wait(asio::ip::tcp::socket::wait_read, asio::redirect_error(asio::use_awaitable, ec));
    unsigned char first = 0;
    if (!ec) _socket.receive(asio::buffer(&first, 1), asio::socket_base::message_peek, ec);
    if (ec || _closed) {
      deadline.cancel();
      co_return std::string("gone before its first byte");
    }
    if (first != 0x16) {
      _transport_chosen = true;
      deadline.cancel();
      co_return options.require_tls ? std::string("a plaintext client, and this bookie takes TLS clients only")
                                    : std::string();
    }
    _tls_context = options.tls->current();
    _tls = std::make_unique<tls::ssl::stream<asio::ip::tcp::socket&>>(_socket, *_tls_context);
    co_await _tls->async_handshake(tls::ssl::stream_base::server, asio::redirect_error(asio::use_awaitable, ec));
    _transport_chosen = true;
    deadline.cancel();
    if (ec) co_return fmt::format("TLS handshake failed: {}", ec.message());
    co_return std::string();
  }

  request_context context() const {
    return {.bookie_id = _server._options.bookie_id, .read_only = _server.read_only()};
  }

  // Answers a broken frame and closes once the answer is written.
  void refuse(std::string why) {
    spdlog::warn("bookie: closing a connection from {}: {}", peer(), why);
    bp::response response;
    response.set_txn_id(0);
    response.set_status(bp::BK_EBADREQ);
    response.set_message(std::move(why));
    send(response);
  }

  std::string peer() const {
    boost::system::error_code ec;
    auto endpoint = _socket.remote_endpoint(ec);
    return ec ? std::string("?") : fmt::format("{}:{}", endpoint.address().to_string(), endpoint.port());
  }

  void send(const bp::response& response) {
    const auto size = response.ByteSizeLong();
    std::string frame;
    response.SerializeToArray(io::append_frame_header(frame, size), static_cast<int>(size));
    _outbox.push_back(std::move(frame));
    if (!_writing) {
      _writing = true;
      io::spawn(_socket.get_executor(), [self = shared_from_this()]() { return self->write_loop(); });
    }
  }

  // Every answer ready by the time a write starts goes out in that one write:
  // small answers joined (a write takes at most 64 buffers at a time), a large
  // one (a range read's, megabytes) as it lies, rather than copied once more.
  awaitable<void> write_loop() {
    while (!_outbox.empty()) {
      std::vector<std::string> pieces;
      bool joining = false;
      for (auto& frame : _outbox) {
        if (frame.size() >= large_answer_bytes) {
          pieces.push_back(std::move(frame));
          joining = false;
          continue;
        }
        if (!joining) pieces.emplace_back();
        joining = true;
        pieces.back() += frame;
      }
      _outbox.clear();
      std::vector<asio::const_buffer> buffers;
      buffers.reserve(pieces.size());
      for (const auto& piece : pieces) buffers.push_back(asio::buffer(piece));
      boost::system::error_code ec;
      if (_tls) {
        co_await asio::async_write(*_tls, buffers, asio::redirect_error(asio::use_awaitable, ec));
      } else {
        co_await asio::async_write(_socket, buffers, asio::redirect_error(asio::use_awaitable, ec));
      }
      if (ec) {
        _outbox.clear();
        close();
        break;
      }
    }
    _writing = false;
    if (_reading_done) close();
  }

  bookie_server& _server;
  asio::ip::tcp::socket _socket;
  std::shared_ptr<tls::ssl::context> _tls_context;  // keeps the context _tls uses
  std::unique_ptr<tls::ssl::stream<asio::ip::tcp::socket&>> _tls;
  bool _transport_chosen = false;
  bool _closed = false;
  io::gate::pass _alive;
  std::deque<std::string> _outbox;
  bool _writing = false;
  bool _reading_done = false;
  std::size_t _in_flight = 0;
  std::unique_ptr<io::oneshot_signal> _room;
};

bookie_server::bookie_server(bookie& b, io::shard_set& shards, bookie_server_options options)
    : _bookie(b), _shards(shards), _options(std::move(options)) {}

bookie_server::~bookie_server() { stop(); }

result<void> bookie_server::start() {
  auto& first = _shards[0];
  boost::system::error_code ec;
  const auto address = asio::ip::make_address(_options.bind_address, ec);
  if (ec)
    return fail(std::make_error_code(std::errc::invalid_argument),
                fmt::format("bind address '{}': {}", _options.bind_address, ec.message()));
  _acceptor = std::make_unique<asio::ip::tcp::acceptor>(first.context());
  const asio::ip::tcp::endpoint endpoint(address, _options.port);
  _acceptor->open(endpoint.protocol(), ec);
  if (!ec) _acceptor->set_option(asio::socket_base::reuse_address(true), ec);
  if (!ec) _acceptor->bind(endpoint, ec);
  if (!ec) _acceptor->listen(asio::socket_base::max_listen_connections, ec);
  if (ec) {
    return fail(ec, fmt::format("bookie: can't listen on {}:{}", _options.bind_address, _options.port));
  }
  _port = _acceptor->local_endpoint().port();
  MAGNETAR_TRY(pass, _accepting.enter());
  io::spawn(first.executor(),
            [this, held = std::make_shared<io::gate::pass>(std::move(pass))]() { return accept_loop(held); });
  spdlog::info("bookie serving on {}:{}", _options.bind_address, _port);
  return success();
}

awaitable<void> bookie_server::accept_loop(std::shared_ptr<io::gate::pass> /*held*/) {
  unsigned next_shard = 0;
  for (;;) {
    auto& target = _shards[next_shard++ % _shards.size()];
    boost::system::error_code ec;
    auto socket = co_await _acceptor->async_accept(target.context(), asio::redirect_error(asio::use_awaitable, ec));
    if (ec) {
      if (ec == asio::error::operation_aborted || !_acceptor->is_open()) co_return;
      spdlog::warn("bookie: accept failed: {}", ec.message());
      continue;
    }
    auto alive = _connections.enter();
    if (!alive) co_return;
    socket.set_option(asio::ip::tcp::no_delay(true), ec);
    auto conn = std::make_shared<bookie_connection>(*this, std::move(socket), std::move(alive).value());
    {
      std::lock_guard lock(_open_mutex);
      std::erase_if(_open, [](const auto& weak) { return weak.expired(); });
      _open.push_back(conn);
    }
    io::spawn(target.executor(), [conn]() { return conn->read_loop(); });
  }
}

void bookie_server::count(request_kind kind, std::size_t added, const bp::response& response,
                          std::chrono::steady_clock::duration took) {
  const auto ok = response.status() == bp::BK_EOK;
  const auto micros = static_cast<std::uint64_t>(std::chrono::duration_cast<std::chrono::microseconds>(took).count());
  if (kind == request_kind::add) {
    ++_counters[ok ? adds_ok : adds_failed];
    _counters[add_micros] += micros;
    if (ok) _counters[bytes_added] += added;
    if (response.status() == bp::BK_EREADONLY && !read_only()) ++_counters[storage_failures];
  } else if (kind == request_kind::read) {
    ++_counters[ok ? reads_ok : reads_failed];
    _counters[read_micros] += micros;
    for (const auto& entry : response.read().entries()) _counters[bytes_read] += entry.size();
  }
}

bookie_server_stats bookie_server::stats() const {
  bookie_server_stats s;
  s.adds_ok = _counters[adds_ok];
  s.adds_failed = _counters[adds_failed];
  s.reads_ok = _counters[reads_ok];
  s.reads_failed = _counters[reads_failed];
  s.add_micros = _counters[add_micros];
  s.read_micros = _counters[read_micros];
  s.bytes_added = _counters[bytes_added];
  s.bytes_read = _counters[bytes_read];
  s.storage_failures = _counters[storage_failures];
  s.connections = _counters[connections];
  return s;
}

void bookie_server::stop() {
  if (!_acceptor) return;
  io::block_on(_shards[0], [this]() -> awaitable<void> {
    boost::system::error_code ignored;
    _acceptor->close(ignored);
    co_await _accepting.close();
  }());
  std::vector<std::weak_ptr<bookie_connection>> open;
  {
    std::lock_guard lock(_open_mutex);
    open.swap(_open);
  }
  for (auto& weak : open) {
    // Each connection's socket belongs to its shard: close it there.
    if (auto conn = weak.lock()) asio::post(conn->executor(), [conn] { conn->close(); });
  }
  io::block_on(_shards[0], _connections.close());
  _acceptor.reset();
}

}  // namespace magnetar::bookie
