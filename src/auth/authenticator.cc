#include "auth/authenticator.h"

#include "auth/errc.h"
#include "auth/key_value.h"

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <nlohmann/json.hpp>

#include <algorithm>

namespace magnetar::auth {
namespace {

constexpr std::string_view token_provider_class = "org.apache.pulsar.broker.authentication.AuthenticationProviderToken";

bool is_token_provider(std::string_view name) { return name == "token" || name == token_provider_class; }
constexpr std::string_view tls_provider_class = "org.apache.pulsar.broker.authentication.AuthenticationProviderTls";
bool is_tls_provider(std::string_view name) { return name == "tls" || name == tls_provider_class; }

// Whether the claim (a string or an array of strings) holds `wanted`.
bool claim_holds(const std::string& claims_json, const std::string& claim, const std::string& wanted) {
  const auto claims = nlohmann::json::parse(claims_json, nullptr, false);
  if (!claims.is_object() || !claims.contains(claim)) return false;
  const auto& value = claims[claim];
  if (value.is_string()) return value.get<std::string>() == wanted;
  if (!value.is_array()) return false;
  return std::any_of(value.begin(), value.end(),
                     [&](const nlohmann::json& v) { return v.is_string() && v.get<std::string>() == wanted; });
}

// The role a claim names: a string, or the first string of an array.
std::optional<std::string> role_of(const std::string& claims_json, const std::string& claim) {
  const auto claims = nlohmann::json::parse(claims_json, nullptr, false);
  if (!claims.is_object() || !claims.contains(claim)) return std::nullopt;
  const auto& value = claims[claim];
  if (value.is_string()) return value.get<std::string>();
  if (value.is_array() && !value.empty() && value.front().is_string()) return value.front().get<std::string>();
  return std::nullopt;
}

}  // namespace

result<std::unique_ptr<authenticator>> authenticator::create(const authentication_settings& settings) {
  std::optional<token_verifier> tokens;
  bool tls = false;
  for (const auto& provider : settings.providers) {
    if (is_tls_provider(provider)) {
      tls = true;
      continue;
    }
    if (!is_token_provider(provider)) {
      return fail(errc::unknown_method,
                  fmt::format("authentication provider '{}': magnetar has the token provider ({}) and the TLS "
                              "provider ({})",
                              provider, token_provider_class, tls_provider_class));
    }
    if (tokens) continue;
    if (!settings.token_secret_key.empty()) {
      MAGNETAR_TRY(secret, read_key_value(settings.token_secret_key));
      MAGNETAR_TRY(verifier, token_verifier::with_secret_key(std::move(secret)));
      tokens = std::move(verifier);
    } else if (!settings.token_public_key.empty()) {
      MAGNETAR_TRY(key, read_key_value(settings.token_public_key));
      auto verifier = token_verifier::with_public_key(key);
      if (!verifier) return fail(errc::bad_key, fmt::format("tokenPublicKey: {}", verifier.error().message()));
      tokens = std::move(verifier).value();
    } else {
      return fail(errc::bad_key, "the token provider needs tokenSecretKey or tokenPublicKey");
    }
    if (!settings.token_audience_claim.empty() && settings.token_audience.empty()) {
      return fail(errc::bad_key, "tokenAudienceClaim is set but tokenAudience is not");
    }
  }
  return std::unique_ptr<authenticator>(new authenticator(settings, std::move(tokens), tls));
}

result<principal> authenticator::anonymous() const {
  if (_settings.anonymous_user_role.empty()) {
    return fail(errc::no_credentials, "no credentials, and no anonymous role (anonymousUserRole)");
  }
  return principal{.role = _settings.anonymous_user_role, .method = "none", .expires_at = std::nullopt};
}

result<principal> authenticator::from_token(std::string_view token, std::chrono::system_clock::time_point now) const {
  if (!_tokens) return fail(errc::unknown_method, "token authentication is not configured");
  if (token.empty()) return fail(errc::bad_token, "an empty token");
  MAGNETAR_TRY(contents, _tokens->verify(token, now));
  if (!_settings.token_audience_claim.empty() &&
      !claim_holds(contents.claims_json, _settings.token_audience_claim, _settings.token_audience)) {
    return fail(errc::bad_token, fmt::format("the token's {} claim doesn't name this broker's audience ({})",
                                             _settings.token_audience_claim, _settings.token_audience));
  }
  const std::string claim = _settings.token_auth_claim.empty() ? "sub" : _settings.token_auth_claim;
  auto role = role_of(contents.claims_json, claim);
  if (!role || role->empty()) return fail(errc::no_role, fmt::format("the token has no '{}' claim", claim));
  return principal{.role = std::move(*role), .method = "token", .expires_at = contents.expires_at};
}

result<principal> authenticator::authenticate(std::string_view method, std::string_view data,
                                              std::chrono::system_clock::time_point now) const {
  if (method.empty() || method == "none") return anonymous();
  if (method == "token") return from_token(data, now);
  return fail(errc::unknown_method, fmt::format("authentication method '{}' is not configured", method));
}

result<principal> authenticator::authenticate_tls(const std::optional<std::string>& peer_common_name) const {
  if (!_tls) return fail(errc::unknown_method, "TLS authentication is not configured");
  if (!peer_common_name || peer_common_name->empty()) {
    return fail(errc::no_credentials, "no trusted client certificate with a common name");
  }
  return principal{.role = *peer_common_name, .method = "tls", .expires_at = std::nullopt};
}

result<principal> authenticator::authenticate_http(std::optional<std::string_view> authorization,
                                                   std::chrono::system_clock::time_point now) const {
  if (!authorization) return anonymous();
  constexpr std::string_view bearer = "Bearer ";
  if (!authorization->starts_with(bearer)) return fail(errc::bad_token, "Invalid HTTP Authorization header");
  return from_token(authorization->substr(bearer.size()), now);
}

}  // namespace magnetar::auth
