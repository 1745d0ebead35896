// one_request_server: a real HTTP server for the client's tests: Beast on 127.0.0.1 and
// an ephemeral port, on a thread of its own, answering one request with a canned
// response and keeping what it received.
//
// Thread-safety: construct, call the client, then received() (which waits for the
// server's thread) from the test's thread. The destructor stops a server that never got
// its request.
#pragma once

#include <utility>  // before any Asio header (Boost 1.74's awaitable.hpp, see io/asio.h)

#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/post.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/http.hpp>

#include <cstdint>
#include <thread>

namespace magnetar::http::testing {

namespace bhttp = boost::beast::http;
using tcp = boost::asio::ip::tcp;

using canned_response = bhttp::response<bhttp::string_body>;
using received_request = bhttp::request<bhttp::string_body>;

// A response with `status`, `body` and Content-Length.
inline canned_response respond(bhttp::status status, std::string body = {}) {
  canned_response response(status, 11);
  response.body() = std::move(body);
  response.prepare_payload();
  return response;
}

class one_request_server {
 public:
  explicit one_request_server(canned_response response)
      : _acceptor(_context, tcp::endpoint(boost::asio::ip::make_address("127.0.0.1"), 0)),
        _socket(_context),
        _response(std::move(response)),
        _port(_acceptor.local_endpoint().port()) {
    _acceptor.async_accept(_socket, [this](boost::system::error_code ec) {
      if (ec) return;
      bhttp::async_read(_socket, _buffer, _request, [this](boost::system::error_code ec, std::size_t) {
        if (ec) return;
        _response.keep_alive(false);
        bhttp::async_write(_socket, _response, [this](boost::system::error_code, std::size_t) {
          boost::system::error_code ignored;
          _socket.shutdown(tcp::socket::shutdown_send, ignored);
        });
      });
    });
    _thread = std::thread([this] { _context.run(); });
  }

  one_request_server(const one_request_server&) = delete;
  one_request_server& operator=(const one_request_server&) = delete;

  ~one_request_server() {
    boost::asio::post(_context, [this] {
      boost::system::error_code ignored;
      _acceptor.close(ignored);
      _socket.close(ignored);
    });
    if (_thread.joinable()) _thread.join();
  }

  std::uint16_t port() const { return _port; }

  // What the client sent; waits for the server to have answered it.
  const received_request& received() {
    if (_thread.joinable()) _thread.join();
    return _request;
  }

 private:
  boost::asio::io_context _context;
  tcp::acceptor _acceptor;
  tcp::socket _socket;
  boost::beast::flat_buffer _buffer;
  received_request _request;
  canned_response _response;
  std::uint16_t _port;
  std::thread _thread;
};

}  // namespace magnetar::http::testing
