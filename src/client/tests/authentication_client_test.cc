// The SDK with a token against a standalone that requires one (authenticationEnabled,
// authorizationEnabled): CONNECT carries the token, a refusal reaches the caller as
// authentication_error / authorization_error, an expiring token is refreshed from its
// file when the broker challenges it.
#include "auth/jwt_token.h"
#include "auth/key_generation.h"
#include "auth/key_value.h"
#include "client/tests/client_test_fixture.h"
#include "http/client.h"

#include <filesystem>
#include <fstream>

namespace magnetar::client_testing {
namespace {

using namespace std::chrono_literals;

class authentication_client_test : public client_test {
 protected:
  authentication_client_test() {
    broker.authentication_enabled = true;
    broker.authentication.providers = {"token"};
    broker.authentication.token_secret_key = "data:;base64," + auth::base64_encoded(secret);
    broker.authentication_refresh_check = 1s;
    broker.authorization_enabled = true;
    broker.super_user_roles = {"root"};
    config.auth_params = "token:" + token("root");
  }

  std::string token(std::string_view role, std::optional<std::chrono::seconds> lifetime = std::nullopt) const {
    std::optional<std::chrono::system_clock::time_point> expiry;
    if (lifetime) expiry = std::chrono::system_clock::now() + *lifetime;
    return auth::create_token("HS256", secret, role, expiry).value();
  }
  client client_with(std::string params) const {
    auto c = config;
    c.auth_params = std::move(params);
    return client::create(service_url(), c).value();
  }

  // The broker's count of connections ever made (its /metrics).
  double connections_made() const {
    auto r = magnetar::http::call(magnetar::http::url{.host = "127.0.0.1", .port = *broker.web_service_port}, "GET",
                                  "/metrics", {});
    if (!r) return -1;
    const std::string name = "pulsar_connection_created_total_count{";
    auto at = r.value().body.find(name);
    if (at == std::string::npos) return -1;
    return std::stod(r.value().body.substr(r.value().body.find("} ", at) + 2));
  }

  const std::string secret = auth::generate_secret_key("HS256").value();
};

TEST_F(authentication_client_test, a_token_lets_the_client_produce_and_consume) {
  auto consumer = sdk->subscribe(topic(), "sub");
  ASSERT_TRUE(consumer) << consumer.error();
  auto producer = sdk->create_producer(topic());
  ASSERT_TRUE(producer) << producer.error();
  ASSERT_TRUE(producer.value().send(text("hello")));
  auto got = consumer.value().receive(10s);
  ASSERT_TRUE(got) << got.error();
  EXPECT_EQ(got.value().payload(), "hello");
}

TEST_F(authentication_client_test, a_forged_token_is_an_authentication_error) {
  const auto forged = auth::create_token("HS256", auth::generate_secret_key("HS256").value(), "root", std::nullopt);
  auto c = client_with("token:" + forged.value());
  auto producer = c.create_producer(topic());
  ASSERT_FALSE(producer);
  EXPECT_EQ(producer.error(), client_errc::authentication_error) << producer.error();
  (void)c.close();
}

TEST_F(authentication_client_test, a_role_without_permission_is_an_authorization_error) {
  auto c = client_with("token:" + token("app"));
  auto producer = c.create_producer(topic());
  ASSERT_FALSE(producer);
  EXPECT_EQ(producer.error(), client_errc::authorization_error) << producer.error();
  (void)c.close();
}

TEST_F(authentication_client_test, an_expiring_token_is_refreshed_from_its_file) {
  const std::filesystem::path file = dir / "token";
  std::ofstream(file) << token("root", 2s);
  auto c = client_with("file://" + file.string());
  const auto before = connections_made();
  auto producer = c.create_producer(topic(), producer_config{.batching_enabled = false});
  ASSERT_TRUE(producer) << producer.error();
  std::ofstream(file) << token("root");  // the operator's rotation
  // The broker challenges once the first token expires; the answer comes from the file,
  // and the connection (and the producer on it) carries on.
  const auto deadline = std::chrono::steady_clock::now() + 5s;  // expiry 2 s + checks every 1 s, with slack
  int sent = 0;
  while (std::chrono::steady_clock::now() < deadline) {
    ASSERT_TRUE(producer.value().send(text("m"))) << "message " << sent;
    ++sent;
    std::this_thread::sleep_for(50ms);  // paces the sends over the expiry; not a wait for a result
  }
  EXPECT_EQ(connections_made(), before + 1) << "the same connection throughout";
  (void)c.close();
}

}  // namespace
}  // namespace magnetar::client_testing
