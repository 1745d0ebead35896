// http_server: a small HTTP/1.1 server on Boost.Beast for the broker's admin REST
// API and /metrics, and the bookie's /metrics and health endpoints.
//
// It listens on one address and port (0: an ephemeral port, see port()), over plain
// TCP or TLS (options::tls: a client that hasn't finished its handshake within the
// handshake timeout is dropped, as is one that sends no request), reads each
// request whole (headers and body within the configured limits; a larger one gets 413),
// hands it to one handler and writes the answer; connections are kept alive between
// requests and dropped after an idle timeout. Every connection holds a pass of the
// server's gate, so stop() closes the listener, cuts idle connections, and returns once
// every request in flight has been answered or failed.
//
// Owning shard: the accept loop and every connection run on the shard given at
// construction (a single-threaded io_context); handlers may hop elsewhere and resume
// there. start() and stop() are called from any one thread other than that shard's
// (stop may also be awaited on another shard). The handler must not throw.
#pragma once

#include "base/result.h"
#include "http/limits.h"
#include "http/message.h"
#include "io/asio.h"
#include "io/gate.h"
#include "io/shard.h"
#include "tls/server_context_source.h"

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>

namespace magnetar::http {

class http_server {
 public:
  struct options {
    std::string address = "0.0.0.0";
    std::uint16_t port = 8080;  // 0: any free port
    std::size_t max_body_bytes = default_max_body_bytes;
    std::size_t max_header_bytes = default_max_header_bytes;
    std::chrono::seconds idle_timeout{60};  // an idle keep-alive connection is closed after it
    std::string server_name = "magnetar";
    // HTTPS (webServicePortTls): each connection's TLS handshake with the source's current
    // context, bounded by handshake_timeout; null: plain HTTP.
    std::shared_ptr<tls::server_context_source> tls;
    std::chrono::seconds handshake_timeout{10};
  };
  using request_handler = std::function<awaitable<http_response>(incoming_request)>;

  http_server(io::shard& shard, options opts, request_handler handler);
  ~http_server();
  http_server(const http_server&) = delete;
  http_server& operator=(const http_server&) = delete;

  // Binds and listens, then accepts on the shard. Fails when the address is invalid or
  // the port is taken (the detail names the address). Once only.
  result<void> start();
  // The port listened on (the ephemeral one when 0 was asked); 0 before start().
  std::uint16_t port() const { return _port; }

  // Stops accepting, closes connections, waits for requests in flight. Idempotent.
  awaitable<void> stop();

  // Shared with the server's coroutines (an implementation detail).
  struct state;

 private:
  io::shard& _shard;
  const options _options;
  std::uint16_t _port = 0;
  std::shared_ptr<state> _state;
  bool _stopped = false;
};

}  // namespace magnetar::http
