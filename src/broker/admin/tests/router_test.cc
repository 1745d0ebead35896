// router: matching by method and pattern, parameters, queries, 404 and 405.
#include "broker/admin/router.h"

#include "io/block_on.h"
#include "io/running_shards.h"

#include <gmock/gmock.h>

namespace magnetar::broker::admin {
namespace {

using ::testing::HasSubstr;

class router_test : public ::testing::Test {
 protected:
  // Each route answers with its own name and what it saw.
  void add(const char* method, const char* pattern, std::string name) {
    routes.add(method, pattern, access::anyone, [name](incoming_request r) -> awaitable<http_response> {
      std::string seen = name;
      for (const auto& [k, v] : r.params) seen += " " + k + "=" + v;
      for (const auto& [k, v] : r.query) seen += " ?" + k + "=" + v;
      co_return text_response(200, seen);
    });
  }
  http_response call(const char* method, const char* target) {
    return io::block_on(shards[0], routes.dispatch(incoming_request{.method = method, .target = target}));
  }

  router routes;
  io::running_shards shards{1};
};

TEST_F(router_test, fills_path_parameters) {
  add("GET", "/admin/v2/tenants/{tenant}", "tenant");
  auto r = call("GET", "/admin/v2/tenants/acme");
  EXPECT_EQ(r.status, 200);
  EXPECT_EQ(r.body, "tenant tenant=acme");
}

TEST_F(router_test, percent_decodes_parameters_after_splitting) {
  add("GET", "/t/{name}", "t");
  EXPECT_EQ(call("GET", "/t/a%2Fb%20c").body, "t name=a/b c");
}

TEST_F(router_test, parses_the_query) {
  add("DELETE", "/t/{name}", "t");
  EXPECT_EQ(call("DELETE", "/t/x?force=true&flag&v=a%26b").body, "t name=x ?flag= ?force=true ?v=a&b");
}

TEST_F(router_test, prefers_the_pattern_with_more_literal_segments) {
  add("GET", "/p/{t}/{ns}/{topic}", "topic");
  add("GET", "/p/{t}/{ns}/partitioned", "partitioned");
  EXPECT_EQ(call("GET", "/p/a/b/partitioned").body, "partitioned ns=b t=a");
  EXPECT_EQ(call("GET", "/p/a/b/other").body, "topic ns=b t=a topic=other");
}

TEST_F(router_test, unknown_path_is_404_with_a_reason) {
  add("GET", "/a", "a");
  auto r = call("GET", "/nope");
  EXPECT_EQ(r.status, 404);
  EXPECT_THAT(r.body, HasSubstr("\"reason\""));
  EXPECT_EQ(r.content_type, "application/json");
}

TEST_F(router_test, known_path_with_another_method_is_405_with_allow) {
  add("GET", "/a/{x}", "get");
  add("PUT", "/a/{x}", "put");
  auto r = call("POST", "/a/1");
  EXPECT_EQ(r.status, 405);
  EXPECT_EQ(r.allow, "GET, PUT");
}

TEST_F(router_test, bad_percent_escape_is_400) {
  add("GET", "/a/{x}", "get");
  EXPECT_EQ(call("GET", "/a/%zz").status, 400);
}

TEST_F(router_test, trailing_slash_matches_the_same_route) {
  add("GET", "/metrics", "metrics");
  EXPECT_EQ(call("GET", "/metrics/").status, 200);
}

TEST(percent_decode, refuses_a_truncated_escape) {
  EXPECT_FALSE(percent_decode("abc%4"));
  EXPECT_EQ(percent_decode("%41"), "A");
}

}  // namespace
}  // namespace magnetar::broker::admin

namespace magnetar::broker::admin {
namespace {

TEST(router_guard_test, the_guard_sees_the_params_and_its_refusal_replaces_the_handler) {
  io::running_shards shards{1};
  router routes;
  routes.add("GET", "/admin/v2/tenants/{tenant}", access::tenant_admin,
             [](incoming_request) -> awaitable<http_response> { co_return text_response(200, "handled"); });
  routes.add("GET", "/metrics", access::anyone,
             [](incoming_request) -> awaitable<http_response> { co_return text_response(200, "metrics"); });
  std::vector<std::string> seen;
  routes.set_guard([&](const incoming_request& r, access who) -> awaitable<std::optional<http_response>> {
    seen.push_back(r.param("tenant"));
    EXPECT_EQ(who, access::tenant_admin);
    if (r.param("tenant") == "locked") co_return error_response(401, "no");
    co_return std::nullopt;
  });
  auto call = [&](const char* target) {
    return io::block_on(shards[0], routes.dispatch(incoming_request{.method = "GET", .target = target}));
  };
  EXPECT_EQ(call("/admin/v2/tenants/open").body, "handled");
  EXPECT_EQ(call("/admin/v2/tenants/locked").status, 401);
  EXPECT_EQ(call("/metrics").body, "metrics");
  EXPECT_EQ(seen, (std::vector<std::string>{"open", "locked"})) << "routes open to anyone skip the guard";
}

}  // namespace
}  // namespace magnetar::broker::admin
