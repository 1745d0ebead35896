// authenticator: who a client is, from the credentials it presents, as Pulsar's
// authenticationProviders decide it. The TLS provider (method "tls") takes the common
// name of the client's verified certificate as its role. The token provider (method "token") takes a JWT
// signed with tokenSecretKey, or with the private key of tokenPublicKey, and names the
// role its tokenAuthClaim claim holds ("sub" by default); with tokenAudienceClaim set,
// the token's audience must include tokenAudience. A client that presents no
// credentials (method "none", or no Authorization header) gets anonymousUserRole, or is
// refused when there is none.
//
// Built once from the broker's settings: a key that can't be read fails the broker's
// start, not the first client.
//
// Thread-safety: const after create(); authenticate() may run on any thread at once.
#pragma once

#include "auth/jwt_token.h"
#include "base/result.h"

#include <chrono>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace magnetar::auth {

struct authentication_settings {
  // authenticationProviders: upstream's class names or the method names ("token").
  std::vector<std::string> providers;
  std::string token_secret_key;  // tokenSecretKey (a key value, see key_value.h)
  std::string token_public_key;  // tokenPublicKey
  std::string token_auth_claim;  // tokenAuthClaim; empty: "sub"
  std::string token_audience_claim;
  std::string token_audience;
  std::string anonymous_user_role;  // anonymousUserRole; empty: none
};

struct principal {
  std::string role;
  std::string method;  // "token", or "none" for the anonymous role
  // When the credentials stop being valid (a token's exp); nullopt: never.
  std::optional<std::chrono::system_clock::time_point> expires_at;
};

class authenticator {
 public:
  // errc::bad_key for an unreadable key, errc::unknown_method for a provider magnetar
  // doesn't have (naming the ones it has).
  static result<std::unique_ptr<authenticator>> create(const authentication_settings& settings);

  // CONNECT's auth_method_name and auth_data (AUTH_RESPONSE's, on a refresh).
  result<principal> authenticate(std::string_view method, std::string_view data,
                                 std::chrono::system_clock::time_point now = std::chrono::system_clock::now()) const;
  // The TLS provider (method "tls"): the common name of the client's verified
  // certificate is its role. no_credentials without one; unknown_method when the
  // provider is not configured.
  result<principal> authenticate_tls(const std::optional<std::string>& peer_common_name) const;
  // An HTTP request's Authorization header ("Bearer <token>"); nullopt when it has none.
  result<principal> authenticate_http(
      std::optional<std::string_view> authorization,
      std::chrono::system_clock::time_point now = std::chrono::system_clock::now()) const;

 private:
  authenticator(authentication_settings settings, std::optional<token_verifier> tokens, bool tls)
      : _settings(std::move(settings)), _tokens(std::move(tokens)), _tls(tls) {}
  result<principal> anonymous() const;
  result<principal> from_token(std::string_view token, std::chrono::system_clock::time_point now) const;

  authentication_settings _settings;
  std::optional<token_verifier> _tokens;  // when the token provider is configured
  bool _tls = false;                      // the TLS provider is configured
};

}  // namespace magnetar::auth
