#include "http/client.h"

#include "one_request_server.h"

#include <fmt/format.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <string>

namespace magnetar::http {
namespace {

using ::testing::HasSubstr;
using testing::one_request_server;
using testing::respond;
using testing::tcp;
namespace asio = boost::asio;
namespace bhttp = testing::bhttp;

url local(std::uint16_t port, std::string prefix = {}) {
  return url{.host = "127.0.0.1", .port = port, .prefix = std::move(prefix)};
}

TEST(client_test, a_reply_carries_status_reason_and_body) {
  one_request_server server(respond(bhttp::status::ok, R"({"a":1})"));
  auto r = call(local(server.port()), "GET", "/x");
  ASSERT_TRUE(r) << r.error();
  EXPECT_EQ(r.value().status, 200);
  EXPECT_EQ(r.value().reason, "OK");
  EXPECT_EQ(r.value().body, R"({"a":1})");
}

TEST(client_test, an_error_status_is_a_reply) {
  one_request_server server(respond(bhttp::status::not_found, R"({"reason":"Topic not found"})"));
  auto r = call(local(server.port()), "GET", "/missing");
  ASSERT_TRUE(r) << r.error();
  EXPECT_EQ(r.value().status, 404);
  EXPECT_EQ(r.value().reason, "Not Found");
  EXPECT_EQ(r.value().body, R"({"reason":"Topic not found"})");
}

TEST(client_test, response_headers_are_carried) {
  auto redirect = respond(bhttp::status::temporary_redirect);
  redirect.set(bhttp::field::location, "http://other:8080/admin/v2/x");
  one_request_server server(std::move(redirect));
  auto r = call(local(server.port()), "GET", "/admin/v2/x");
  ASSERT_TRUE(r) << r.error();
  EXPECT_EQ(r.value().status, 307);
  EXPECT_EQ(r.value().header("Location"), "http://other:8080/admin/v2/x");
}

TEST(client_test, a_header_is_found_whatever_its_case) {
  const reply r{.status = 200, .reason = "OK", .body = {}, .headers = {{"content-type", "text/plain"}}};
  EXPECT_EQ(r.header("Content-Type"), "text/plain");
  EXPECT_EQ(r.header("Allow"), std::nullopt);
}

TEST(client_test, a_body_is_sent_as_json) {
  one_request_server server(respond(bhttp::status::no_content));
  auto r = call(local(server.port()), "PUT", "/admin/v2/tenants/t", R"({"allowedClusters":["standalone"]})");
  ASSERT_TRUE(r) << r.error();
  const auto& request = server.received();
  EXPECT_EQ(request.method_string(), "PUT");
  EXPECT_EQ(request[bhttp::field::content_type], "application/json");
  EXPECT_EQ(request.body(), R"({"allowedClusters":["standalone"]})");
}

TEST(client_test, a_request_without_a_body_has_no_content_type) {
  one_request_server server(respond(bhttp::status::no_content));
  ASSERT_TRUE(call(local(server.port()), "POST", "/terminate"));
  const auto& request = server.received();
  EXPECT_EQ(request.count(bhttp::field::content_type), 0u);
  EXPECT_EQ(request.body(), "");
}

TEST(client_test, the_url_prefix_goes_in_front_of_the_target) {
  one_request_server server(respond(bhttp::status::ok));
  ASSERT_TRUE(call(local(server.port(), "/pulsar"), "GET", "/admin/v2/clusters?x=1"));
  EXPECT_EQ(server.received().target(), "/pulsar/admin/v2/clusters?x=1");
}

TEST(client_test, a_host_name_is_looked_up) {
  one_request_server server(respond(bhttp::status::ok, "found"));
  auto r = call(url{.host = "localhost", .port = server.port()}, "GET", "/x");
  ASSERT_TRUE(r) << r.error();
  EXPECT_EQ(r.value().body, "found");
}

// A port that was just free: nothing listens there.
std::uint16_t closed_port() {
  asio::io_context context;
  tcp::acceptor acceptor(context, tcp::endpoint(asio::ip::make_address("127.0.0.1"), 0));
  return acceptor.local_endpoint().port();
}

TEST(client_test, no_server_fails_naming_the_address) {
  const auto port = closed_port();
  auto r = call(local(port), "GET", "/admin/v2/clusters");
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error(), base::errc::io_error);
  EXPECT_THAT(r.error().detail(), HasSubstr(fmt::format("cannot connect to http://127.0.0.1:{}: ", port)));
  EXPECT_THAT(r.error().detail(), HasSubstr("(GET /admin/v2/clusters)"));
}

TEST(client_test, the_server_name_goes_into_the_error) {
  const auto port = closed_port();
  auto r = call(local(port), "GET", "/x", {}, {.server_name = "the admin API"});
  ASSERT_FALSE(r);
  EXPECT_THAT(r.error().detail(),
              HasSubstr(fmt::format("cannot connect to the admin API at http://127.0.0.1:{}: ", port)));
}

TEST(client_test, a_server_that_never_answers_times_out) {
  // Listening but never accepting: the kernel completes the connection and takes the
  // request, and no response ever comes.
  asio::io_context context;
  tcp::acceptor silent(context, tcp::endpoint(asio::ip::make_address("127.0.0.1"), 0));
  auto r = call(local(silent.local_endpoint().port()), "GET", "/x", {}, {.timeout = std::chrono::milliseconds(200)});
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error(), base::errc::timed_out);
  EXPECT_THAT(r.error().detail(), HasSubstr("cannot read from"));
  EXPECT_THAT(r.error().detail(), HasSubstr("no answer within 200 ms"));
}

TEST(client_test, a_body_over_the_limit_fails) {
  one_request_server server(respond(bhttp::status::ok, std::string(100, 'x')));
  auto r = call(local(server.port()), "GET", "/big", {}, {.body_limit = 10});
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error(), base::errc::io_error);
  EXPECT_THAT(r.error().detail(), HasSubstr("body limit"));
}

TEST(client_test, a_redirect_is_followed_with_the_same_method_and_body_when_asked) {
  one_request_server owner(respond(bhttp::status::no_content));
  auto redirect = respond(bhttp::status::temporary_redirect);
  redirect.set(bhttp::field::location, fmt::format("http://127.0.0.1:{}/admin/v2/y?authoritative=true", owner.port()));
  one_request_server first(std::move(redirect));
  auto r = call(local(first.port()), "PUT", "/admin/v2/x", R"({"a":1})", {.max_redirects = 1});
  ASSERT_TRUE(r) << r.error();
  EXPECT_EQ(r.value().status, 204);
  const auto& moved = owner.received();
  EXPECT_EQ(moved.method_string(), "PUT");
  EXPECT_EQ(moved.target(), "/admin/v2/y?authoritative=true");
  EXPECT_EQ(moved.body(), R"({"a":1})");
}

TEST(client_test, a_redirect_is_returned_when_none_may_be_followed) {
  auto redirect = respond(bhttp::status::temporary_redirect);
  redirect.set(bhttp::field::location, "http://127.0.0.1:1/admin/v2/y");
  one_request_server server(std::move(redirect));
  auto r = call(local(server.port()), "GET", "/admin/v2/x");
  ASSERT_TRUE(r) << r.error();
  EXPECT_EQ(r.value().status, 307);
}

}  // namespace
}  // namespace magnetar::http
