#include "perf/launcher/admin_http.h"

#include "base/errc.h"

#include <utility>  // before Asio (Boost 1.74's awaitable.hpp needs it)

#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/http.hpp>
#include <fmt/format.h>

#include <charconv>

namespace magnetar::perf {

namespace asio = boost::asio;
namespace beast = boost::beast;
namespace http = boost::beast::http;
using tcp = asio::ip::tcp;

result<http_endpoint> parse_http_url(std::string_view url) {
  constexpr std::string_view scheme = "http://";
  if (!url.starts_with(scheme)) {
    return fail(base::errc::invalid_argument,
                fmt::format("admin URL '{}': expected http://host[:port] (https is not supported)", url));
  }
  std::string_view rest = url.substr(scheme.size());
  http_endpoint out;
  const auto slash = rest.find('/');
  if (slash != std::string_view::npos) {
    out.base_path = std::string(rest.substr(slash));
    while (!out.base_path.empty() && out.base_path.back() == '/') out.base_path.pop_back();
    rest = rest.substr(0, slash);
  }
  const auto colon = rest.rfind(':');
  out.host = std::string(rest.substr(0, colon));
  if (colon != std::string_view::npos) {
    const auto digits = rest.substr(colon + 1);
    unsigned port = 0;
    const auto [end, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), port);
    if (ec != std::errc() || end != digits.data() + digits.size() || port == 0 || port > 65535) {
      return fail(base::errc::invalid_argument, fmt::format("admin URL '{}': bad port '{}'", url, digits));
    }
    out.port = static_cast<std::uint16_t>(port);
  }
  if (out.host.empty()) return fail(base::errc::invalid_argument, fmt::format("admin URL '{}': no host", url));
  return out;
}

result<http_reply> http_call(const http_endpoint& endpoint, std::string_view method, std::string_view target,
                             std::string_view body, std::chrono::milliseconds timeout) {
  const std::string full_target = endpoint.base_path + std::string(target);
  asio::io_context context;
  boost::system::error_code ec;
  auto failed = [&](std::string_view step) {
    return fail(base::errc::io_error, fmt::format("{} http://{}:{}{}: {}: {}", method, endpoint.host, endpoint.port,
                                                  full_target, step, ec.message()));
  };
  tcp::resolver resolver(context);
  const auto endpoints = resolver.resolve(endpoint.host, std::to_string(endpoint.port), ec);
  if (ec) return failed("resolve");

  // Beast's timeouts work on asynchronous operations only: each step runs on this
  // private context until it completes or the stream's timer cancels it.
  beast::tcp_stream stream(context);
  auto run = [&](auto&& start) {
    bool done = false;
    stream.expires_after(timeout);
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
  request.target(full_target);
  request.version(11);
  request.set(http::field::host, fmt::format("{}:{}", endpoint.host, endpoint.port));
  request.set(http::field::user_agent, "magnetar-perf");
  request.set(http::field::accept, "application/json");
  if (!body.empty() || method == "PUT" || method == "POST") {
    request.set(http::field::content_type, "application/json");
    request.body() = std::string(body);
  }
  request.keep_alive(false);
  request.prepare_payload();
  run([&](auto handler) { http::async_write(stream, request, std::move(handler)); });
  if (ec) return failed("write");

  beast::flat_buffer buffer;
  http::response_parser<http::string_body> parser;
  parser.body_limit(64 * 1024 * 1024);
  run([&](auto handler) { http::async_read(stream, buffer, parser, std::move(handler)); });
  if (ec) return failed("read");

  http_reply reply{.status = static_cast<int>(parser.get().result_int()), .body = std::move(parser.get().body())};
  boost::system::error_code ignored;
  stream.socket().shutdown(tcp::socket::shutdown_both, ignored);
  return reply;
}

namespace {

struct topic_parts {
  std::string_view domain, tenant, ns, local;
};

result<topic_parts> split_topic(std::string_view topic) {
  const auto bad = [&] {
    return fail(base::errc::invalid_argument,
                fmt::format("topic '{}': expected persistent://<tenant>/<namespace>/<name>", topic));
  };
  const auto scheme_end = topic.find("://");
  if (scheme_end == std::string_view::npos) return bad();
  topic_parts parts;
  parts.domain = topic.substr(0, scheme_end);
  if (parts.domain != "persistent" && parts.domain != "non-persistent") return bad();
  std::string_view rest = topic.substr(scheme_end + 3);
  const auto first = rest.find('/');
  if (first == std::string_view::npos) return bad();
  const auto second = rest.find('/', first + 1);
  if (second == std::string_view::npos) return bad();
  parts.tenant = rest.substr(0, first);
  parts.ns = rest.substr(first + 1, second - first - 1);
  parts.local = rest.substr(second + 1);
  if (parts.tenant.empty() || parts.ns.empty() || parts.local.empty()) return bad();
  return parts;
}

}  // namespace

result<std::string> topic_stats_path(std::string_view topic) {
  MAGNETAR_TRY(parts, split_topic(topic));
  return fmt::format("/admin/v2/{}/{}/{}/{}/stats", parts.domain, parts.tenant, parts.ns, parts.local);
}

result<topic_namespace> namespace_of(std::string_view topic) {
  MAGNETAR_TRY(parts, split_topic(topic));
  return topic_namespace{std::string(parts.tenant), std::string(parts.ns)};
}

result<bool> ensure_namespace(const http_endpoint& admin, std::string_view topic) {
  MAGNETAR_TRY(ns, namespace_of(topic));
  const auto target = fmt::format("/admin/v2/namespaces/{}/{}", ns.tenant, ns.name);
  MAGNETAR_TRY(reply, http_call(admin, "PUT", target, {}, std::chrono::seconds(10)));
  if (reply.status == 200 || reply.status == 204) return true;
  if (reply.status == 409) return false;
  return fail(base::errc::io_error,
              fmt::format("create namespace {}/{}: HTTP {}: {}", ns.tenant, ns.name, reply.status, reply.body));
}

}  // namespace magnetar::perf
