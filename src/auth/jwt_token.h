// jwt_token: Pulsar's authentication tokens, JSON Web Tokens (RFC 7519) in compact form,
// made and checked with libjwt. As `pulsar tokens` makes them: HS256/384/512 with a
// secret key (its raw bytes), or RS256/384/512 and ES256/384/512 with a key pair.
//
// verify() takes a token only if its signature is good under the configured key AND
// its algorithm is one that key signs with: a secret key takes HS* only, a public key
// RS* (RSA) or ES* (EC) only, so a token signed with HMAC over the public key's bytes
// (the classic algorithm confusion) or unsigned ("none") is refused. An exp claim in the
// past is refused; a token without exp never expires, as upstream.
//
// Thread-safety: pure functions; a verifier may be shared by threads.
#pragma once

#include "base/result.h"

#include <chrono>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace magnetar::auth {

enum class key_family { hmac, rsa, ec };

struct token_contents {
  std::string header_json;  // the decoded header and claims, as the token carries them
  std::string claims_json;
  std::string algorithm;  // "HS256", ...
  std::optional<std::string> claim(std::string_view name) const;
  // The exp claim, when there is one.
  std::optional<std::chrono::system_clock::time_point> expires_at;
};

// The algorithms `tokens create` takes: HS256/384/512, RS256/384/512, ES256/384/512.
// errc::bad_key naming them for anything else.
result<key_family> family_of_algorithm(std::string_view algorithm);

// A signed token with `subject` in the "sub" claim and, when given, an "exp" claim.
// `key`: the secret's bytes (HS*), or a private key, DER or PEM (RS*, ES*).
result<std::string> create_token(std::string_view algorithm, std::string_view key, std::string_view subject,
                                 std::optional<std::chrono::system_clock::time_point> expires_at);

// The token's header and claims without checking its signature (`tokens show`).
result<token_contents> decode_token(std::string_view token);

// Checks tokens against one key: a secret (raw bytes) or a public key (DER or PEM).
class token_verifier {
 public:
  static result<token_verifier> with_secret_key(std::string secret);
  static result<token_verifier> with_public_key(std::string_view der_or_pem);

  // The token's contents when it is signed by this key with an algorithm of its family
  // and not expired at `now`; errc::bad_token or errc::expired_token otherwise.
  result<token_contents> verify(std::string_view token,
                                std::chrono::system_clock::time_point now = std::chrono::system_clock::now()) const;

 private:
  token_verifier(std::string key, std::optional<key_family> family) : _key(std::move(key)), _family(family) {}
  std::string _key;  // the secret, or the public key as PEM
  // hmac for a secret; rsa or ec for a public key (nullopt: decided by the key's type).
  std::optional<key_family> _family;
};

}  // namespace magnetar::auth
