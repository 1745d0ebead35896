#include "auth/jwt_token.h"

#include "auth/errc.h"
#include "auth/key_generation.h"
#include "auth/key_value.h"

#include <gtest/gtest.h>

#include <chrono>

namespace magnetar::auth {
namespace {

using namespace std::chrono_literals;
const auto in_an_hour = std::chrono::system_clock::now() + 1h;

TEST(jwt_token_test, a_secret_key_token_verifies_and_names_its_subject) {
  const auto secret = generate_secret_key("HS256").value();
  const auto token = create_token("HS256", secret, "alice", in_an_hour).value();
  const auto contents = token_verifier::with_secret_key(secret).value().verify(token).value();
  EXPECT_EQ(contents.claim("sub"), "alice");
  EXPECT_EQ(contents.algorithm, "HS256");
  ASSERT_TRUE(contents.expires_at.has_value());
}

TEST(jwt_token_test, a_token_signed_with_another_secret_is_refused) {
  const auto token = create_token("HS256", generate_secret_key("HS256").value(), "alice", std::nullopt).value();
  const auto verified = token_verifier::with_secret_key(generate_secret_key("HS256").value()).value().verify(token);
  ASSERT_FALSE(verified);
  EXPECT_EQ(verified.error(), errc::bad_token);
}

TEST(jwt_token_test, a_token_past_its_expiry_is_refused_as_expired) {
  const auto secret = generate_secret_key("HS256").value();
  const auto token = create_token("HS256", secret, "alice", std::chrono::system_clock::now() - 1s).value();
  const auto verified = token_verifier::with_secret_key(secret).value().verify(token);
  ASSERT_FALSE(verified);
  EXPECT_EQ(verified.error(), errc::expired_token);
}

TEST(jwt_token_test, a_token_without_expiry_never_expires) {
  const auto secret = generate_secret_key("HS512").value();
  const auto token = create_token("HS512", secret, "bob", std::nullopt).value();
  const auto contents =
      token_verifier::with_secret_key(secret).value().verify(token, std::chrono::system_clock::now() + 87600h);
  ASSERT_TRUE(contents) << contents.error();
  EXPECT_FALSE(contents.value().expires_at.has_value());
}

TEST(jwt_token_test, rsa_and_ec_pairs_sign_with_the_private_key_and_verify_with_the_public_one) {
  for (const auto* algorithm : {"RS256", "ES256", "ES384"}) {
    const auto pair = generate_key_pair(algorithm).value();
    const auto token = create_token(algorithm, pair.private_der, "carol", in_an_hour);
    ASSERT_TRUE(token) << algorithm << ": " << token.error();
    const auto contents = token_verifier::with_public_key(pair.public_der).value().verify(token.value());
    ASSERT_TRUE(contents) << algorithm << ": " << contents.error();
    EXPECT_EQ(contents.value().claim("sub"), "carol");
    const auto other = generate_key_pair(algorithm).value();
    EXPECT_FALSE(token_verifier::with_public_key(other.public_der).value().verify(token.value())) << algorithm;
  }
}

TEST(jwt_token_test, an_hmac_token_keyed_with_the_public_key_is_refused_by_the_public_key) {
  // Algorithm confusion: the attacker knows the public key and signs HS256 with its bytes.
  const auto pair = generate_key_pair("RS256").value();
  const auto public_pem = as_pem_public_key(pair.public_der).value();
  const auto forged = create_token("HS256", public_pem, "admin", in_an_hour).value();
  const auto verified = token_verifier::with_public_key(pair.public_der).value().verify(forged);
  ASSERT_FALSE(verified);
  EXPECT_EQ(verified.error(), errc::bad_token);
}

TEST(jwt_token_test, an_unsigned_token_is_refused) {
  const auto secret = generate_secret_key("HS256").value();
  // {"alg":"none"} . {"sub":"admin"} . (no signature)
  const auto verified =
      token_verifier::with_secret_key(secret).value().verify("eyJhbGciOiJub25lIn0.eyJzdWIiOiJhZG1pbiJ9.");
  ASSERT_FALSE(verified);
  EXPECT_EQ(verified.error(), errc::bad_token);
}

TEST(jwt_token_test, a_token_whose_claims_were_changed_is_refused) {
  const auto secret = generate_secret_key("HS256").value();
  const auto token = create_token("HS256", secret, "alice", std::nullopt).value();
  const auto first_dot = token.find('.');
  const auto second_dot = token.find('.', first_dot + 1);
  // {"sub":"admin"}, base64url
  const auto tampered = token.substr(0, first_dot + 1) + "eyJzdWIiOiJhZG1pbiJ9" + token.substr(second_dot);
  EXPECT_FALSE(token_verifier::with_secret_key(secret).value().verify(tampered));
}

TEST(jwt_token_test, garbage_is_not_a_token) {
  const auto verifier = token_verifier::with_secret_key("0123456789abcdef0123456789abcdef").value();
  for (const auto* text : {"", "x", "a.b.c", "....", "eyJhbGciOiJIUzI1NiJ9..."}) {
    const auto verified = verifier.verify(text);
    ASSERT_FALSE(verified) << text;
    EXPECT_EQ(verified.error(), errc::bad_token) << text;
  }
}

TEST(jwt_token_test, an_empty_secret_key_is_refused) {
  EXPECT_EQ(token_verifier::with_secret_key("").error(), errc::bad_key);
  EXPECT_EQ(create_token("HS256", "", "alice", std::nullopt).error(), errc::bad_key);
}

TEST(jwt_token_test, decode_shows_a_tokens_header_and_claims_without_a_key) {
  const auto token = create_token("HS256", generate_secret_key("HS256").value(), "dave", std::nullopt).value();
  const auto contents = decode_token(token).value();
  EXPECT_NE(contents.header_json.find("HS256"), std::string::npos);
  EXPECT_EQ(contents.claim("sub"), "dave");
}

TEST(jwt_token_test, an_unknown_algorithm_is_named_in_the_error) {
  const auto made = create_token("HS999", "secret", "x", std::nullopt);
  ASSERT_FALSE(made);
  EXPECT_NE(made.error().message().find("HS999"), std::string::npos);
}

}  // namespace
}  // namespace magnetar::auth
