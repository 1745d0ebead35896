// libFuzzer target for what an HTTP client hands the admin API before any handler does
// its own work: Beast's request parser under the admin server's limits, the router's
// path splitting, percent-decoding, query parsing and pattern matching (request_path),
// and the name checks every handler runs first (request_names: tenant, namespace, topic).
// The router's coroutine plumbing is left out: clang 14 can't compile coroutines against
// GCC's standard library, and it only hands the matched request to a handler. Arbitrary bytes must never crash,
// and a name that passes the checks must stay in its place in the metadata tree: no '/',
// no "." or ".." component, nothing but upstream's characters (path traversal).
//
// Input: the bytes of one HTTP/1.1 request as a client sends them.
// Run by scripts/fuzz (MAGNETAR_FUZZ_TARGET=admin_request). `MAGNETAR_FUZZ_WRITE_SEEDS=<dir>`
// writes the seed corpus there and exits. Single-threaded, as libFuzzer calls it.
#include "broker/admin/request_names.h"
#include "broker/admin/request_path.h"
#include "http/limits.h"

#include <boost/beast/http.hpp>

#include <cctype>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <string>
#include <string_view>

namespace magnetar::broker::admin {
namespace {

namespace beast_http = boost::beast::http;

[[noreturn]] void broken(std::string_view what, std::string_view name) {
  std::fprintf(stderr, "admin_request_fuzz: %.*s: '%.*s'\n", static_cast<int>(what.size()), what.data(),
               static_cast<int>(name.size()), name.data());
  std::abort();
}

// What a tenant or namespace name that the checks let through must be: upstream's
// characters only, and not "." or "..".
void expect_contained(std::string_view name) {
  if (name.empty() || name == "." || name == "..") broken("a name the checks passed is empty, '.' or '..'", name);
  for (const char c : name) {
    const bool allowed =
        std::isalnum(static_cast<unsigned char>(c)) || std::string_view("-=:._").find(c) != std::string_view::npos;
    if (!allowed) broken("a name the checks passed holds a character outside -=:._ and alphanumerics", name);
  }
}

// A topic's local name may hold any character but '/', and is not "." or "..".
void expect_contained_local(std::string_view name) {
  if (name.empty() || name == "." || name == "..") broken("a local name the checks passed is empty, '.' or '..'", name);
  if (name.find('/') != std::string_view::npos) broken("a local name the checks passed holds '/'", name);
}

// Every admin handler begins so: a bad tenant or namespace is 412, then the topic.
void check_names(const http::incoming_request& request) {
  if (detail::invalid_names(request)) return;
  for (const char* part : {"tenant", "namespace"}) {
    if (request.params.contains(part)) expect_contained(request.param(part));
  }
  if (!request.params.contains("topic")) return;
  auto topic = detail::topic_from(request);
  if (!topic) return;
  expect_contained(topic.value().tenant());
  expect_contained(topic.value().namespace_part());
  expect_contained_local(topic.value().local_name());
  auto again = wire::topic_name::parse(topic.value().full());
  if (!again || again.value().full() != topic.value().full()) {
    broken("a topic name doesn't parse back to itself", topic.value().full());
  }
}

// The shapes of the admin API's paths (tenants, namespaces and their permissions,
// topics of both domains with subscriptions and partitions, lookups).
const std::vector<path_pattern>& patterns() {
  static const std::vector<path_pattern> table = [] {
    std::vector<path_pattern> out;
    for (const char* pattern : {
             "/admin/v2/tenants",
             "/admin/v2/tenants/{tenant}",
             "/admin/v2/namespaces/{tenant}",
             "/admin/v2/namespaces/{tenant}/{namespace}",
             "/admin/v2/namespaces/{tenant}/{namespace}/permissions/{role}",
             "/admin/v2/persistent/{tenant}/{namespace}",
             "/admin/v2/persistent/{tenant}/{namespace}/{topic}",
             "/admin/v2/persistent/{tenant}/{namespace}/{topic}/partitions",
             "/admin/v2/persistent/{tenant}/{namespace}/{topic}/subscription/{subscription}",
             "/admin/v2/non-persistent/{tenant}/{namespace}/{topic}",
             "/lookup/v2/topic/persistent/{tenant}/{namespace}/{topic}",
         }) {
      out.emplace_back(pattern);
    }
    return out;
  }();
  return table;
}

// As the router: the path and query decoded, then every pattern that matches binds its
// params and the names are checked.
void route(const http::incoming_request& parsed) {
  const std::string_view target = parsed.target;
  const auto question = target.find('?');
  const auto path = split_path(target.substr(0, question));
  if (!path) return;
  if (question != std::string_view::npos && !parse_query(target.substr(question + 1))) return;
  for (const auto& pattern : patterns()) {
    if (!pattern.matches(*path)) continue;
    auto request = parsed;
    pattern.bind(*path, request.params);
    check_names(request);
  }
}

// One request through Beast's parser with the admin server's limits; nullopt when the
// bytes are not a whole request.
std::optional<http::incoming_request> parse(std::string_view bytes) {
  beast_http::request_parser<beast_http::string_body> parser;
  parser.eager(true);
  parser.body_limit(http::default_max_body_bytes);
  parser.header_limit(static_cast<std::uint32_t>(http::default_max_header_bytes));
  boost::system::error_code ec;
  while (!bytes.empty() && !parser.is_done()) {
    const auto used = parser.put(boost::asio::buffer(bytes.data(), bytes.size()), ec);
    if (ec || used == 0) break;
    bytes.remove_prefix(used);
  }
  if (!parser.is_done()) return std::nullopt;
  auto& message = parser.get();
  http::incoming_request request{.method = std::string(message.method_string()),
                                 .target = std::string(message.target()),
                                 .body = std::move(message.body()),
                                 .content_type = std::string(message[beast_http::field::content_type])};
  if (const auto found = message.find(beast_http::field::authorization); found != message.end()) {
    request.authorization = std::string(found->value());
  }
  return request;
}

void write_seeds(const char* directory) {
  const char* seeds[] = {
      "PUT /admin/v2/tenants/acme HTTP/1.1\r\nHost: b\r\nContent-Type: application/json\r\nContent-Length: "
      "21\r\n\r\n{\"adminRoles\":[\"a\"]}\n",
      "GET /admin/v2/namespaces/public/default?force=true HTTP/1.1\r\nHost: b\r\n\r\n",
      "POST /admin/v2/namespaces/public/default/permissions/app HTTP/1.1\r\nHost: b\r\nAuthorization: Bearer "
      "x.y.z\r\nContent-Length: 20\r\n\r\n[\"produce\",\"consume\"]",
      "DELETE /admin/v2/persistent/public/default/t%2Dx/subscription/s%20a HTTP/1.1\r\nHost: b\r\n\r\n",
      "GET /lookup/v2/topic/persistent/public/default/orders-partition-3 HTTP/1.1\r\nHost: b\r\n\r\n",
      "PUT /admin/v2/persistent/public/default/t/partitions HTTP/1.1\r\nHost: b\r\nTransfer-Encoding: "
      "chunked\r\n\r\n1\r\n4\r\n0\r\n\r\n",
      "GET /admin/v2/tenants/%2E%2E HTTP/1.1\r\nHost: b\r\n\r\n",
  };
  int i = 0;
  for (const char* seed : seeds) std::ofstream(std::string(directory) + "/seed-" + std::to_string(i++)) << seed;
}

}  // namespace
}  // namespace magnetar::broker::admin

extern "C" int LLVMFuzzerInitialize(int*, char***) {
  if (const char* directory = std::getenv("MAGNETAR_FUZZ_WRITE_SEEDS")) {
    magnetar::broker::admin::write_seeds(directory);
    std::exit(0);
  }
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace magnetar::broker::admin;
  if (auto request = parse(std::string_view(reinterpret_cast<const char*>(data), size))) route(*request);
  return 0;
}
