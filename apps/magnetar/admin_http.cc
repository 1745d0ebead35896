#include "admin_http.h"

#include <fmt/format.h>

#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/http.hpp>
#include <cctype>
#include <charconv>
#include <utility>  // before any Asio header (Boost 1.74, see io/asio.h)

#include "base/errc.h"

namespace magnetar::app {
namespace {

namespace beast = boost::beast;
namespace http = beast::http;
using tcp = boost::asio::ip::tcp;

auto bad_url(std::string_view url, std::string_view why) {
  return fail(base::errc::invalid_argument, fmt::format("bad admin URL '{}': {}", url, why));
}

}  // namespace

result<admin_url> admin_url::parse(std::string_view text) {
  constexpr std::string_view scheme = "http://";
  if (text.starts_with("https://")) return bad_url(text, "https is not supported; use http://");
  if (!text.starts_with(scheme)) return bad_url(text, "expected http://host[:port]");
  std::string_view rest = text.substr(scheme.size());
  admin_url url;
  const auto slash = rest.find('/');
  std::string_view authority = rest.substr(0, slash);
  if (slash != std::string_view::npos) {
    std::string_view prefix = rest.substr(slash);
    while (prefix.ends_with('/')) prefix.remove_suffix(1);
    url.prefix = std::string(prefix);
  }
  std::string_view port;
  if (authority.starts_with('[')) {  // [::1]:8080
    const auto close = authority.find(']');
    if (close == std::string_view::npos) return bad_url(text, "unclosed '[' in the host");
    url.host = std::string(authority.substr(1, close - 1));
    std::string_view after = authority.substr(close + 1);
    if (!after.empty() && !after.starts_with(':')) return bad_url(text, "expected ':' after ']'");
    if (!after.empty()) port = after.substr(1);
  } else {
    const auto colon = authority.rfind(':');
    url.host = std::string(authority.substr(0, colon));
    if (colon != std::string_view::npos) port = authority.substr(colon + 1);
  }
  if (url.host.empty()) return bad_url(text, "no host");
  if (!port.empty()) {
    unsigned number = 0;
    const auto [end, ec] = std::from_chars(port.data(), port.data() + port.size(), number);
    if (ec != std::errc() || end != port.data() + port.size() || number == 0 || number > 65535) {
      return bad_url(text, fmt::format("'{}' is not a port", port));
    }
    url.port = static_cast<std::uint16_t>(number);
  }
  return url;
}

std::string admin_url::to_string() const {
  const bool v6 = host.find(':') != std::string::npos;
  return fmt::format("http://{}{}{}:{}{}", v6 ? "[" : "", host, v6 ? "]" : "", port, prefix);
}

std::string encode_path_segment(std::string_view text) {
  std::string out;
  for (unsigned char c : text) {
    if (std::isalnum(c) || c == '-' || c == '.' || c == '_' || c == '~') {
      out += static_cast<char>(c);
    } else {
      out += fmt::format("%{:02X}", c);
    }
  }
  return out;
}

result<http_reply> http_call(const admin_url& url, std::string_view method, std::string_view target,
                             std::string_view body, std::chrono::milliseconds timeout) {
  boost::asio::io_context io;
  tcp::resolver resolver(io);
  beast::tcp_stream stream(io);
  beast::flat_buffer buffer;
  http::response<http::string_body> response;

  http::request<http::string_body> request;
  request.method(http::string_to_verb(std::string(method)));
  request.target(url.prefix + std::string(target));
  request.version(11);
  request.set(http::field::host, url.host);
  request.set(http::field::user_agent, "magnetar-admin");
  request.set(http::field::accept, "application/json");
  request.set(http::field::connection, "close");
  if (!body.empty()) request.set(http::field::content_type, "application/json");
  request.body() = std::string(body);
  request.prepare_payload();

  // Asynchronous steps on a private io_context, only because Beast's deadline
  // (expires_after) applies to asynchronous operations; the call itself blocks.
  beast::error_code failure;
  std::string_view stage = "resolve";
  resolver.async_resolve(
      url.host, std::to_string(url.port), [&](beast::error_code ec, tcp::resolver::results_type hosts) {
        if (ec) return void(failure = ec);
        stage = "connect to";
        stream.expires_after(timeout);
        stream.async_connect(hosts, [&](beast::error_code ec, const tcp::endpoint&) {
          if (ec) return void(failure = ec);
          stage = "send to";
          http::async_write(stream, request, [&](beast::error_code ec, std::size_t) {
            if (ec) return void(failure = ec);
            stage = "read from";
            http::async_read(stream, buffer, response, [&](beast::error_code ec, std::size_t) { failure = ec; });
          });
        });
      });
  io.run();
  if (failure) {
    const std::string why =
        failure == beast::error::timeout ? fmt::format("no answer within {} ms", timeout.count()) : failure.message();
    return fail(base::errc::io_error, fmt::format("cannot {} the admin API at {}: {}", stage, url.to_string(), why));
  }
  beast::error_code ignored;
  stream.socket().shutdown(tcp::socket::shutdown_both, ignored);
  return http_reply{response.result_int(), std::string(response.reason()), std::move(response.body())};
}

}  // namespace magnetar::app
