#include "auth/authenticator.h"

#include "auth/errc.h"
#include "auth/key_generation.h"
#include "auth/key_value.h"

#include <gtest/gtest.h>

namespace magnetar::auth {
namespace {

using namespace std::chrono_literals;

struct token_setup {
  std::string secret = generate_secret_key("HS256").value();
  authentication_settings settings() const {
    authentication_settings s;
    s.providers = {"org.apache.pulsar.broker.authentication.AuthenticationProviderToken"};
    s.token_secret_key = "data:;base64," + base64_encoded(secret);
    return s;
  }
  std::string token(std::string_view role) const { return create_token("HS256", secret, role, std::nullopt).value(); }
};

TEST(authenticator_test, a_valid_token_names_its_subjects_role) {
  const token_setup keys;
  const auto auth = authenticator::create(keys.settings()).value();
  const auto who = auth->authenticate("token", keys.token("alice"));
  ASSERT_TRUE(who) << who.error();
  EXPECT_EQ(who.value().role, "alice");
  EXPECT_EQ(who.value().method, "token");
}

TEST(authenticator_test, a_bearer_header_carries_the_token_over_http) {
  const token_setup keys;
  const auto auth = authenticator::create(keys.settings()).value();
  EXPECT_EQ(auth->authenticate_http("Bearer " + keys.token("bob")).value().role, "bob");
  EXPECT_EQ(auth->authenticate_http("Basic Ym9iOnB3").error(), errc::bad_token);
}

TEST(authenticator_test, no_credentials_are_refused_without_an_anonymous_role) {
  const token_setup keys;
  const auto auth = authenticator::create(keys.settings()).value();
  EXPECT_EQ(auth->authenticate("none", "").error(), errc::no_credentials);
  EXPECT_EQ(auth->authenticate_http(std::nullopt).error(), errc::no_credentials);
}

TEST(authenticator_test, no_credentials_get_the_anonymous_role_when_there_is_one) {
  const token_setup keys;
  auto settings = keys.settings();
  settings.anonymous_user_role = "guest";
  const auto auth = authenticator::create(settings).value();
  EXPECT_EQ(auth->authenticate("none", "").value().role, "guest");
  EXPECT_EQ(auth->authenticate_http(std::nullopt).value().role, "guest");
}

TEST(authenticator_test, the_role_comes_from_the_configured_claim) {
  const token_setup keys;
  auto settings = keys.settings();
  settings.token_auth_claim = "role";
  const auto auth = authenticator::create(settings).value();
  EXPECT_EQ(auth->authenticate("token", keys.token("alice")).error(), errc::no_role) << "sub is not the claim now";
}

TEST(authenticator_test, an_audience_claim_must_name_the_brokers_audience) {
  const token_setup keys;
  auto settings = keys.settings();
  settings.token_audience_claim = "aud";
  settings.token_audience = "magnetar";
  const auto auth = authenticator::create(settings).value();
  EXPECT_EQ(auth->authenticate("token", keys.token("alice")).error(), errc::bad_token);
}

TEST(authenticator_test, an_expired_token_is_refused_and_a_valid_ones_expiry_is_kept) {
  const token_setup keys;
  const auto auth = authenticator::create(keys.settings()).value();
  const auto now = std::chrono::system_clock::now();
  const auto token = create_token("HS256", keys.secret, "alice", now + 10s).value();
  const auto who = auth->authenticate("token", token, now).value();
  ASSERT_TRUE(who.expires_at.has_value());
  EXPECT_EQ(auth->authenticate("token", token, now + 11s).error(), errc::expired_token);
}

TEST(authenticator_test, a_public_key_setting_verifies_tokens_of_its_private_key) {
  const auto pair = generate_key_pair("RS256").value();
  authentication_settings settings;
  settings.providers = {"token"};
  settings.token_public_key = "data:;base64," + base64_encoded(pair.public_der);
  const auto auth = authenticator::create(settings).value();
  const auto token = create_token("RS256", pair.private_der, "carol", std::nullopt).value();
  EXPECT_EQ(auth->authenticate("token", token).value().role, "carol");
}

TEST(authenticator_test, an_unknown_method_or_provider_is_named) {
  const token_setup keys;
  const auto auth = authenticator::create(keys.settings()).value();
  EXPECT_EQ(auth->authenticate("athenz", "x").error(), errc::unknown_method);
  auto settings = keys.settings();
  settings.providers.push_back("org.example.Kerberos");
  const auto refused = authenticator::create(settings);
  ASSERT_FALSE(refused);
  EXPECT_NE(refused.error().message().find("org.example.Kerberos"), std::string::npos);
}

TEST(authenticator_test, a_token_provider_without_a_key_fails_at_creation) {
  authentication_settings settings;
  settings.providers = {"token"};
  EXPECT_EQ(authenticator::create(settings).error(), errc::bad_key);
  settings.token_secret_key = "file:///nonexistent/secret.key";
  EXPECT_EQ(authenticator::create(settings).error(), errc::bad_key);
}

}  // namespace
}  // namespace magnetar::auth
