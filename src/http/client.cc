#include "http/client.h"

#include "base/errc.h"
#include "tls/tls_context.h"

#include <fmt/format.h>

#include <utility>  // before any Asio header (Boost 1.74's awaitable.hpp, see io/asio.h)

#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/address.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/http.hpp>
#include <boost/beast/ssl.hpp>

#include <algorithm>
#include <cctype>
#include <condition_variable>
#include <memory>
#include <mutex>
#include <optional>
#include <system_error>
#include <thread>

namespace magnetar::http {

namespace {

namespace asio = boost::asio;
namespace beast = boost::beast;
namespace bhttp = boost::beast::http;
using tcp = asio::ip::tcp;
using steady = std::chrono::steady_clock;

// A name lookup running on its own thread, shared with the caller that waits for it.
struct lookup {
  std::mutex mutex;
  std::condition_variable finished;
  bool done = false;
  boost::system::error_code error;
  std::vector<tcp::endpoint> endpoints;
};

// The endpoints of `host`, or a failure in `error` (beast::error::timeout at the deadline).
// getaddrinfo cannot be cancelled, and Asio's async_resolve runs it on a thread that the
// io_context joins when it is destroyed, so a hung lookup would hold the call past its
// deadline; a detached thread owns the lookup instead and the caller stops waiting at the
// deadline. An address needs no lookup (and no thread): the usual case, 127.0.0.1.
std::vector<tcp::endpoint> resolve(const url& where, steady::time_point deadline, boost::system::error_code& error) {
  const auto address = asio::ip::make_address(where.host, error);
  if (!error) return {tcp::endpoint(address, where.port)};
  error.clear();
  auto state = std::make_shared<lookup>();
  try {
    std::thread([state, host = where.host, port = std::to_string(where.port)] {
      asio::io_context context;
      tcp::resolver resolver(context);
      boost::system::error_code failed;
      const auto results = resolver.resolve(host, port, failed);
      std::lock_guard lock(state->mutex);
      state->error = failed;
      for (const auto& entry : results) state->endpoints.push_back(entry.endpoint());
      state->done = true;
      state->finished.notify_all();
    }).detach();
  } catch (const std::system_error& e) {
    error = boost::system::error_code(e.code().value(), boost::system::system_category());
    return {};
  }
  std::unique_lock lock(state->mutex);
  if (!state->finished.wait_until(lock, deadline, [&] { return state->done; })) {
    error = beast::error::timeout;
    return {};
  }
  error = state->error;
  return std::move(state->endpoints);
}

bool same_name(std::string_view a, std::string_view b) {
  return std::ranges::equal(a, b, [](unsigned char x, unsigned char y) { return std::tolower(x) == std::tolower(y); });
}

}  // namespace

std::optional<std::string_view> reply::header(std::string_view name) const {
  for (const auto& field : headers) {
    if (same_name(field.name, name)) return std::string_view(field.value);
  }
  return std::nullopt;
}

namespace {

// The request written and the response read on a connected `stream` (a tcp_stream, or
// an ssl_stream over one), each step run on `context` until it completes or the
// stream's deadline closes the socket.
template <typename Stream>
result<reply> exchange(Stream& stream, asio::io_context& context, const url& where, std::string_view method,
                       const std::string& full_target, std::string_view body, const call_options& options,
                       boost::system::error_code& ec) {
  const auto run = [&](auto&& start) {
    bool done = false;
    start([&](boost::system::error_code e, auto&&...) {
      ec = e;
      done = true;
    });
    context.restart();
    while (!done && context.run_one() > 0) {
    }
  };
  bhttp::request<bhttp::string_body> request;
  request.method_string(beast::string_view(method.data(), method.size()));
  request.target(full_target);
  request.version(11);
  const bool v6 = where.host.find(':') != std::string::npos;
  request.set(bhttp::field::host, fmt::format("{}{}{}:{}", v6 ? "[" : "", where.host, v6 ? "]" : "", where.port));
  request.set(bhttp::field::user_agent, "magnetar");
  request.set(bhttp::field::accept, "application/json");
  if (!options.authorization.empty()) request.set(bhttp::field::authorization, options.authorization);
  if (!body.empty()) {
    request.set(bhttp::field::content_type, "application/json");
    request.body() = std::string(body);
  }
  request.keep_alive(false);
  request.prepare_payload();
  run([&](auto handler) { bhttp::async_write(stream, request, std::move(handler)); });
  if (ec) return fail(base::errc::io_error, "send to");

  beast::flat_buffer buffer;
  bhttp::response_parser<bhttp::string_body> parser;
  parser.body_limit(options.body_limit);
  // The header first: Boost 1.74's parser drops its own body_limit error for a
  // Content-Length over the limit when it parses header and body in one go (async_read
  // does), and keeps it when it stops after the header.
  run([&](auto handler) { bhttp::async_read_header(stream, buffer, parser, std::move(handler)); });
  if (!ec && !parser.is_done()) {
    run([&](auto handler) { bhttp::async_read(stream, buffer, parser, std::move(handler)); });
  }
  if (ec) return fail(base::errc::io_error, "read from");

  auto& response = parser.get();
  reply out{.status = static_cast<int>(response.result_int()),
            .reason = std::string(response.reason()),
            .body = std::move(response.body()),
            .headers = {}};
  for (const auto& field : response)
    out.headers.push_back({std::string(field.name_string()), std::string(field.value())});
  return out;
}

// One exchange, no redirects followed.
result<reply> call_once(const url& where, std::string_view method, std::string_view target, std::string_view body,
                        const call_options& options, steady::time_point deadline) {
  const std::string full_target = where.prefix + std::string(target);
  boost::system::error_code ec;
  const auto failed = [&](std::string_view stage) {
    const bool timed_out = ec == beast::error::timeout;
    const std::string why = timed_out ? fmt::format("no answer within {} ms", options.timeout.count()) : ec.message();
    const std::string server = options.server_name.empty() ? std::string() : options.server_name + " at ";
    return fail(timed_out ? base::errc::timed_out : base::errc::io_error,
                fmt::format("cannot {} {}{}: {} ({} {})", stage, server, where.to_string(), why, method, full_target));
  };

  const auto endpoints = resolve(where, deadline, ec);
  if (ec) return failed("resolve");

  // Beast's deadline works on asynchronous operations only: each step runs on this private
  // context until it completes or the stream's timer closes the socket. The expiry stays
  // set across steps, so it bounds connect, handshake, write and read together.
  asio::io_context context;
  beast::tcp_stream stream(context);
  stream.expires_at(deadline);
  bool done = false;
  stream.async_connect(endpoints, [&](boost::system::error_code e, auto&&...) {
    ec = e;
    done = true;
  });
  while (!done && context.run_one() > 0) {
  }
  if (ec) return failed("connect to");

  result<reply> answer = fail(base::errc::io_error, "");
  if (!where.tls) {
    answer = exchange(stream, context, where, method, full_target, body, options, ec);
  } else {
    auto tls_context = tls::make_client_context(options.tls);
    if (!tls_context) {
      return fail(base::errc::invalid_argument,
                  fmt::format("cannot call {}: {}", where.to_string(), tls_context.error().detail()));
    }
    beast::ssl_stream<beast::tcp_stream&> secured(stream, *tls_context.value());
    if (auto prepared = tls::prepare_client(secured.native_handle(), options.tls, where.host); !prepared) {
      return fail(base::errc::invalid_argument, prepared.error().detail());
    }
    done = false;
    secured.async_handshake(tls::ssl::stream_base::client, [&](boost::system::error_code e) {
      ec = e;
      done = true;
    });
    context.restart();
    while (!done && context.run_one() > 0) {
    }
    if (ec) return failed("complete a TLS handshake with");
    answer = exchange(secured, context, where, method, full_target, body, options, ec);
  }
  if (!answer) return failed(answer.error().detail());
  boost::system::error_code ignored;
  stream.socket().shutdown(tcp::socket::shutdown_both, ignored);
  return answer;
}

bool is_redirect(int status) { return status == 301 || status == 302 || status == 307 || status == 308; }

// "http[s]://host:port/path?q" -> the server and "/path?q"; nullopt for anything else.
std::optional<std::pair<url, std::string>> split_location(std::string_view location) {
  const std::string_view scheme = location.starts_with("https://") ? "https://" : "http://";
  if (!location.starts_with(scheme)) return std::nullopt;
  const auto path = location.find('/', scheme.size());
  auto server = url::parse(location.substr(0, path));
  if (!server) return std::nullopt;
  return std::pair{std::move(server).value(),
                   path == std::string_view::npos ? std::string("/") : std::string(location.substr(path))};
}

}  // namespace

result<reply> call(const url& where, std::string_view method, std::string_view target, std::string_view body,
                   const call_options& options) {
  const auto deadline = steady::now() + options.timeout;
  auto answer = call_once(where, method, target, body, options, deadline);
  for (int followed = 0; followed < options.max_redirects && answer && is_redirect(answer.value().status); ++followed) {
    const auto location = answer.value().header("Location");
    auto next = location ? split_location(*location) : std::nullopt;
    if (!next) break;
    answer = call_once(next->first, method, next->second, body, options, deadline);
  }
  return answer;
}

}  // namespace magnetar::http
