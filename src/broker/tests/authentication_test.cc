// Raw-frame tests of token authentication on the binary protocol: CONNECT's credentials,
// the broker's answer to bad ones, and the refresh of expired ones (AUTH_CHALLENGE).
#include "auth/jwt_token.h"
#include "auth/key_generation.h"
#include "auth/key_value.h"
#include "broker/tests/broker_fixture.h"

namespace magnetar::broker::testing {
namespace {

using namespace std::chrono_literals;

class authentication_test : public broker_test {
 protected:
  void SetUp() override {
    config.authentication_enabled = true;
    config.authentication.providers = {"org.apache.pulsar.broker.authentication.AuthenticationProviderToken"};
    config.authentication.token_secret_key = "data:;base64," + auth::base64_encoded(secret);
    config.authentication_refresh_check = 1s;
    start();
  }

  std::string token(std::string_view role, std::optional<std::chrono::seconds> lifetime = std::nullopt) const {
    std::optional<std::chrono::system_clock::time_point> expiry;
    if (lifetime) expiry = std::chrono::system_clock::now() + *lifetime;
    return auth::create_token("HS256", secret, role, expiry).value();
  }

  static proto::BaseCommand connect_with(std::string_view method, std::string_view data, bool refresh = true) {
    proto::BaseCommand command;
    command.set_type(proto::BaseCommand::CONNECT);
    auto& c = *command.mutable_connect();
    c.set_client_version("raw-test");
    c.set_protocol_version(21);
    c.set_auth_method_name(std::string(method));
    c.set_auth_data(std::string(data));
    c.mutable_feature_flags()->set_supports_auth_refresh(refresh);
    return command;
  }

  static void expect_refused(raw_client& client) {
    auto error = client.expect(proto::BaseCommand::ERROR);
    EXPECT_EQ(error.command.error().error(), proto::AuthenticationError);
    EXPECT_EQ(error.command.error().message(), "Failed to authenticate");
    EXPECT_TRUE(client.closed_by_peer());
  }

  static proto::BaseCommand auth_response(std::string_view data) {
    proto::BaseCommand command;
    command.set_type(proto::BaseCommand::AUTH_RESPONSE);
    auto& response = *command.mutable_authresponse();
    response.set_client_version("raw-test");
    response.mutable_response()->set_auth_method_name("token");
    response.mutable_response()->set_auth_data(std::string(data));
    return command;
  }

  static void expect_pong(raw_client& client) {
    proto::BaseCommand ping;
    ping.set_type(proto::BaseCommand::PING);
    ping.mutable_ping();
    client.send(ping);
    client.expect(proto::BaseCommand::PONG);
  }

  const std::string secret = auth::generate_secret_key("HS256").value();
};

TEST_F(authentication_test, a_valid_token_connects) {
  raw_client client(server->broker_port());
  client.send(connect_with("token", token("alice")));
  client.expect(proto::BaseCommand::CONNECTED);
}

TEST_F(authentication_test, no_credentials_are_refused_and_the_connection_closed) {
  raw_client client(server->broker_port());
  client.send(connect_with("none", ""));
  expect_refused(client);
}

TEST_F(authentication_test, a_token_of_another_key_is_refused) {
  const auto forged = auth::create_token("HS256", auth::generate_secret_key("HS256").value(), "admin", std::nullopt);
  raw_client client(server->broker_port());
  client.send(connect_with("token", forged.value()));
  expect_refused(client);
}

TEST_F(authentication_test, an_expired_token_is_refused) {
  raw_client client(server->broker_port());
  client.send(connect_with("token", token("alice", -1s)));
  expect_refused(client);
}

TEST_F(authentication_test, a_method_no_provider_takes_is_refused) {
  raw_client client(server->broker_port());
  client.send(connect_with("athenz", "whatever"));
  expect_refused(client);
}

TEST_F(authentication_test, an_expiring_token_is_challenged_and_a_fresh_one_keeps_the_connection) {
  raw_client client(server->broker_port());
  client.send(connect_with("token", token("alice", 2s)));
  client.expect(proto::BaseCommand::CONNECTED);
  auto challenge = client.expect(proto::BaseCommand::AUTH_CHALLENGE, 30s);
  EXPECT_EQ(challenge.command.authchallenge().challenge().auth_method_name(), "token");
  client.send(auth_response(token("alice", 1h)));
  expect_pong(client);
}

TEST_F(authentication_test, a_refresh_naming_another_role_closes_the_connection) {
  raw_client client(server->broker_port());
  client.send(connect_with("token", token("alice", 2s)));
  client.expect(proto::BaseCommand::CONNECTED);
  client.expect(proto::BaseCommand::AUTH_CHALLENGE, 30s);
  client.send(auth_response(token("mallory", 1h)));
  EXPECT_TRUE(client.closed_by_peer());
}

TEST_F(authentication_test, a_bad_refresh_is_refused) {
  raw_client client(server->broker_port());
  client.send(connect_with("token", token("alice", 2s)));
  client.expect(proto::BaseCommand::CONNECTED);
  client.expect(proto::BaseCommand::AUTH_CHALLENGE, 30s);
  client.send(auth_response("not-a-token"));
  expect_refused(client);
}

TEST_F(authentication_test, an_expired_token_of_a_client_that_cant_refresh_closes_the_connection) {
  raw_client client(server->broker_port());
  client.send(connect_with("token", token("alice", 2s), /*refresh=*/false));
  client.expect(proto::BaseCommand::CONNECTED);
  EXPECT_TRUE(client.closed_by_peer(30s));
}

TEST_F(authentication_test, an_auth_response_to_no_challenge_closes_the_connection) {
  raw_client client(server->broker_port());
  client.send(connect_with("token", token("alice")));
  client.expect(proto::BaseCommand::CONNECTED);
  client.send(auth_response(token("alice")));
  EXPECT_TRUE(client.closed_by_peer());
}

// One admin call with `authorization` as its Authorization header (none when empty).
int admin_status(std::uint16_t port, const std::string& target, const std::string& authorization) {
  magnetar::http::call_options options;
  options.authorization = authorization;
  auto r = magnetar::http::call(magnetar::http::url{.host = "127.0.0.1", .port = port}, "GET", target, {}, options);
  EXPECT_TRUE(r) << r.error();
  return r ? r.value().status : -1;
}

TEST_F(authentication_test, the_admin_api_takes_a_bearer_token_and_refuses_requests_without_one) {
  const auto port = server->web_port();
  EXPECT_EQ(admin_status(port, "/admin/v2/tenants", ""), 401);
  EXPECT_EQ(admin_status(port, "/admin/v2/tenants", "Bearer not-a-token"), 401);
  EXPECT_EQ(admin_status(port, "/admin/v2/tenants", "Bearer " + token("alice", -1s)), 401) << "expired";
  EXPECT_EQ(admin_status(port, "/admin/v2/tenants", "Bearer " + token("alice")), 200);
}

TEST_F(authentication_test, metrics_need_no_credentials) {
  EXPECT_EQ(admin_status(server->web_port(), "/metrics", ""), 200);
}

}  // namespace
}  // namespace magnetar::broker::testing
