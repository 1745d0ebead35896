#include "http/server.h"

#include "io/run_on.h"

#include <fmt/format.h>
#include <spdlog/spdlog.h>
#include <boost/asio/ip/tcp.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/http.hpp>
#include <boost/beast/ssl.hpp>

#include <map>

namespace magnetar::http {

namespace beast = boost::beast;
namespace http = boost::beast::http;
namespace ssl = boost::asio::ssl;
using tcp = asio::ip::tcp;
using boost::system::error_code;

namespace {

auto as_tuple_ec(error_code& ec) { return asio::redirect_error(asio::use_awaitable, ec); }

}  // namespace

// Shared by the accept loop and the connections, so that they stay valid whatever the
// order of their ends; touched only on the server's shard once start() has returned.
struct http_server::state {
  state(io::shard& shard, options opts, request_handler fn)
      : executor(shard.executor()), acceptor(executor), opts(std::move(opts)), handler(std::move(fn)) {}

  struct connection {
    beast::tcp_stream* stream;
    bool busy;  // a request is being handled: let it finish instead of cutting it
  };

  asio::any_io_executor executor;
  tcp::acceptor acceptor;
  const options opts;
  const request_handler handler;
  io::gate gate{"admin http server"};
  bool stopping = false;
  std::uint64_t next_connection = 0;
  std::map<std::uint64_t, connection> connections;
};

namespace {

using state_ptr = std::shared_ptr<http_server::state>;

http::response<http::string_body> to_beast(const http_response& response, unsigned version, bool keep_alive,
                                           const std::string& server_name) {
  http::response<http::string_body> out{static_cast<http::status>(response.status), version};
  out.set(http::field::server, server_name);
  if (!response.content_type.empty()) out.set(http::field::content_type, response.content_type);
  if (!response.allow.empty()) out.set(http::field::allow, response.allow);
  if (!response.location.empty()) out.set(http::field::location, response.location);
  out.body() = response.body;
  out.keep_alive(keep_alive);
  out.prepare_payload();
  return out;
}

// The answer to a request that could not be read whole, or nullopt when the peer is
// gone (closed, timed out, reset) and nothing should be written.
std::optional<http_response> read_failure(const error_code& ec, const http_server::options& opts) {
  if (ec == http::error::body_limit) {
    return error_response(413, fmt::format("Request body exceeds the limit of {} bytes", opts.max_body_bytes));
  }
  if (ec == http::error::header_limit) {
    return error_response(431, fmt::format("Request header exceeds the limit of {} bytes", opts.max_header_bytes));
  }
  if (ec.category() == http::make_error_code(http::error::end_of_stream).category()) {
    if (ec == http::error::end_of_stream || ec == http::error::partial_message) return std::nullopt;
    return error_response(400, fmt::format("Malformed HTTP request: {}", ec.message()));
  }
  return std::nullopt;
}

awaitable<http_response> run_handler(const state_ptr& st, incoming_request request) {
  // The edge where an exception escaping a handler (a bug) becomes a 500 instead of
  // ending the connection's coroutine.
  auto what = request.method + " " + request.target;
  try {
    co_return co_await st->handler(std::move(request));
  } catch (const std::exception& e) {
    spdlog::error("admin: handler for {} threw: {}", what, e.what());
    co_return error_response(500, fmt::format("Internal error: {}", e.what()));
  }
}

// Requests on one connection until it ends, fails, or the server stops. `Stream` is a
// beast::tcp_stream or an ssl_stream over one (its lowest layer carries the timeouts).
template <typename Stream>
awaitable<void> serve_requests(const state_ptr& st, Stream& stream, std::uint64_t id) {
  auto& tcp_layer = beast::get_lowest_layer(stream);
  beast::flat_buffer buffer;
  while (!st->stopping) {
    http::request_parser<http::string_body> parser;
    parser.body_limit(st->opts.max_body_bytes);
    parser.header_limit(static_cast<std::uint32_t>(st->opts.max_header_bytes));
    tcp_layer.expires_after(st->opts.idle_timeout);
    error_code ec;
    co_await http::async_read_header(stream, buffer, parser, as_tuple_ec(ec));
    if (!ec && parser.get()[http::field::expect] == "100-continue") {
      http::response<http::empty_body> go_on{http::status::continue_, parser.get().version()};
      co_await http::async_write(stream, go_on, as_tuple_ec(ec));
    }
    if (!ec && !parser.is_done()) co_await http::async_read(stream, buffer, parser, as_tuple_ec(ec));
    if (ec) {
      auto answer = read_failure(ec, st->opts);
      if (answer) {
        auto out = to_beast(*answer, 11, false, st->opts.server_name);
        co_await http::async_write(stream, out, as_tuple_ec(ec));
      }
      break;
    }
    auto& incoming = parser.get();
    incoming_request request{.method = std::string(incoming.method_string()),
                             .target = std::string(incoming.target()),
                             .body = std::move(incoming.body()),
                             .content_type = std::string(incoming[http::field::content_type])};
    request.secure = st->opts.tls != nullptr;
    if (const auto found = incoming.find(http::field::authorization); found != incoming.end()) {
      request.authorization = std::string(found->value());
    }
    const unsigned version = incoming.version();
    bool keep_alive = incoming.keep_alive();
    tcp_layer.expires_never();
    st->connections[id].busy = true;
    auto response = co_await run_handler(st, std::move(request));
    st->connections[id].busy = false;
    keep_alive = keep_alive && !st->stopping;
    auto out = to_beast(response, version, keep_alive, st->opts.server_name);
    tcp_layer.expires_after(st->opts.idle_timeout);
    co_await http::async_write(stream, out, as_tuple_ec(ec));
    if (ec || !keep_alive) break;
  }
}

// The pass moves into a local first: locals end before parameters, so the gate is left
// before `st` (perhaps the last owner of the gate) is released.
awaitable<void> serve(state_ptr st, tcp::socket socket, io::gate::pass pass) {
  [[maybe_unused]] auto held = std::move(pass);
  beast::tcp_stream stream(std::move(socket));
  const auto id = st->next_connection++;
  st->connections[id] = {&stream, false};
  if (!st->opts.tls) {
    co_await serve_requests(st, stream, id);
  } else {
    // The context is taken per connection: a renewed certificate reaches new ones.
    const auto context = st->opts.tls->current();
    beast::ssl_stream<beast::tcp_stream&> secured(stream, *context);
    stream.expires_after(st->opts.handshake_timeout);
    error_code ec;
    co_await secured.async_handshake(ssl::stream_base::server, as_tuple_ec(ec));
    if (!ec) {
      co_await serve_requests(st, secured, id);
      // A close_notify, bounded: a peer that doesn't answer it is cut below anyway.
      stream.expires_after(std::chrono::seconds(1));
      co_await secured.async_shutdown(as_tuple_ec(ec));
    }
  }
  error_code ignored;
  stream.socket().shutdown(tcp::socket::shutdown_send, ignored);
  stream.socket().close(ignored);
  st->connections.erase(id);
}

awaitable<void> accept_loop(state_ptr st, io::gate::pass pass) {
  [[maybe_unused]] auto held = std::move(pass);
  for (;;) {
    error_code ec;
    auto socket = co_await st->acceptor.async_accept(as_tuple_ec(ec));
    if (st->stopping) break;
    if (ec) {
      // Out of descriptors or a connection reset before accept: back off a little and
      // keep serving the connections that exist.
      spdlog::warn("admin: accept failed: {}", ec.message());
      asio::steady_timer backoff(st->executor, std::chrono::milliseconds(100));
      co_await backoff.async_wait(as_tuple_ec(ec));
      continue;
    }
    auto connection_pass = st->gate.enter();
    if (!connection_pass) break;
    asio::co_spawn(st->executor, serve(st, std::move(socket), std::move(connection_pass).value()), asio::detached);
  }
}

}  // namespace

http_server::http_server(io::shard& shard, options opts, request_handler handler)
    : _shard(shard), _options(opts), _state(std::make_shared<state>(shard, std::move(opts), std::move(handler))) {}

http_server::~http_server() {
  if (_port != 0 && !_stopped) {
    // Not stopped: close what is open on the shard; the coroutines hold the state.
    asio::post(_state->executor, [st = _state] {
      st->stopping = true;
      error_code ignored;
      st->acceptor.close(ignored);
      for (auto& [id, c] : st->connections) c.stream->socket().close(ignored);
    });
  }
}

result<void> http_server::start() {
  MAGNETAR_ASSERT(_port == 0, "http_server started twice");
  error_code ec;
  auto address = asio::ip::make_address(_options.address, ec);
  if (ec)
    return fail(std::make_error_code(std::errc::invalid_argument),
                fmt::format("admin: bad listen address '{}'", _options.address));
  tcp::endpoint endpoint(address, _options.port);
  auto& acceptor = _state->acceptor;
  auto failed = [&](std::string_view what) {
    error_code ignored;
    acceptor.close(ignored);
    return fail(ec, fmt::format("admin: {} {}:{}", what, _options.address, _options.port));
  };
  if (acceptor.open(endpoint.protocol(), ec)) return failed("open");
  if (acceptor.set_option(asio::socket_base::reuse_address(true), ec)) return failed("set SO_REUSEADDR on");
  if (acceptor.bind(endpoint, ec)) return failed("bind");
  if (acceptor.listen(asio::socket_base::max_listen_connections, ec)) return failed("listen on");
  _port = acceptor.local_endpoint(ec).port();
  if (ec) return failed("local endpoint of");
  auto pass = _state->gate.enter();
  MAGNETAR_ASSERT(pass.has_value(), "gate closed before start");
  asio::co_spawn(_state->executor, accept_loop(_state, std::move(pass).value()), asio::detached);
  spdlog::info("admin: HTTP{} server listening on {}:{}", _options.tls ? "S" : "", _options.address, _port);
  return success();
}

awaitable<void> http_server::stop() {
  if (_stopped) co_return;
  _stopped = true;
  if (_port == 0) co_return;
  auto st = _state;
  co_await io::run_on(_shard, [&] {
    st->stopping = true;
    error_code ignored;
    st->acceptor.close(ignored);
    for (auto& [id, c] : st->connections) {
      if (!c.busy) c.stream->socket().close(ignored);
    }
  });
  co_await st->gate.close();
}

}  // namespace magnetar::http
