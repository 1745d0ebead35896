#include "broker/admin/http_client.h"

#include "io/asio.h"

#include <boost/asio/ip/tcp.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/http.hpp>
#include <fmt/format.h>

#include <limits>

namespace magnetar::broker::admin {

namespace beast = boost::beast;
namespace http = boost::beast::http;
using tcp = asio::ip::tcp;

result<http_response> http_request(std::string_view host, std::uint16_t port, std::string_view method,
                                   std::string_view target, std::string_view body,
                                   const http_client_options& options) {
  asio::io_context context;
  boost::system::error_code ec;
  auto failed = [&](std::string_view step) {
    return fail(ec, fmt::format("http {} {} to {}:{}: {}", method, target, host, port, step));
  };
  tcp::resolver resolver(context);
  auto endpoints = resolver.resolve(std::string(host), std::to_string(port), ec);
  if (ec) return failed("resolve");

  beast::tcp_stream stream(context);
  // The timeout applies to each of connect, write and read through Beast's timer, and
  // the operations run asynchronously on the private context so that it can fire.
  auto run = [&](auto&& start) {
    bool done = false;
    stream.expires_after(options.timeout);
    start([&](boost::system::error_code e, auto&&...) {
      ec = e;
      done = true;
    });
    context.restart();
    while (!done && context.run_one() > 0) {
    }
  };
  run([&](auto handler) { stream.async_connect(endpoints, std::move(handler)); });
  if (ec) return failed("connect");

  http::request<http::string_body> request;
  request.method_string(beast::string_view(method.data(), method.size()));
  request.target(beast::string_view(target.data(), target.size()));
  request.version(11);
  request.set(http::field::host, fmt::format("{}:{}", host, port));
  request.set(http::field::user_agent, "magnetar-admin");
  if (!body.empty()) {
    request.set(http::field::content_type, options.content_type);
    request.body() = std::string(body);
  }
  request.keep_alive(false);
  request.prepare_payload();
  run([&](auto handler) { http::async_write(stream, request, std::move(handler)); });
  if (ec) return failed("write");

  beast::flat_buffer buffer;
  http::response_parser<http::string_body> parser;
  parser.body_limit(std::numeric_limits<std::uint64_t>::max());
  run([&](auto handler) { http::async_read(stream, buffer, parser, std::move(handler)); });
  if (ec) return failed("read");

  auto& response = parser.get();
  http_response out{.status = static_cast<int>(response.result_int()),
                    .body = std::move(response.body()),
                    .content_type = std::string(response[http::field::content_type]),
                    .allow = std::string(response[http::field::allow])};
  boost::system::error_code ignored;
  stream.socket().shutdown(tcp::socket::shutdown_both, ignored);
  return out;
}

}  // namespace magnetar::broker::admin
