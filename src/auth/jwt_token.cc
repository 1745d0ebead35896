#include "auth/jwt_token.h"

#include "auth/errc.h"
#include "auth/key_value.h"

#include <fmt/format.h>
#include <jwt.h>
#include <openssl/bio.h>
#include <openssl/evp.h>
#include <openssl/pem.h>
#include <nlohmann/json.hpp>

#include <cerrno>
#include <cstdlib>
#include <memory>

namespace magnetar::auth {
namespace {

using jwt_ptr = std::unique_ptr<jwt_t, decltype(&jwt_free)>;

// A string libjwt allocated (with malloc), as a std::string.
std::string take_string(char* allocated) {
  if (!allocated) return {};
  std::string out(allocated);
  std::free(allocated);
  return out;
}

std::optional<jwt_alg_t> jwt_algorithm(std::string_view name) {
  const std::string text(name);
  const auto alg = jwt_str_alg(text.c_str());
  if (alg == JWT_ALG_INVAL || alg == JWT_ALG_NONE) return std::nullopt;
  return alg;
}

result<key_family> family_of_public_key(const std::string& pem) {
  std::unique_ptr<BIO, decltype(&BIO_free)> in(BIO_new_mem_buf(pem.data(), static_cast<int>(pem.size())), &BIO_free);
  std::unique_ptr<EVP_PKEY, decltype(&EVP_PKEY_free)> key(PEM_read_bio_PUBKEY(in.get(), nullptr, nullptr, nullptr),
                                                          &EVP_PKEY_free);
  if (!key) return fail(errc::bad_key, "not a public key");
  switch (EVP_PKEY_base_id(key.get())) {
    case EVP_PKEY_RSA: return key_family::rsa;
    case EVP_PKEY_EC: return key_family::ec;
    default: return fail(errc::bad_key, "a public key that is neither RSA nor EC");
  }
}

token_contents contents_of(jwt_t* token) {
  token_contents out;
  out.header_json = take_string(jwt_get_headers_json(token, nullptr));
  out.claims_json = take_string(jwt_get_grants_json(token, nullptr));
  out.algorithm = jwt_alg_str(jwt_get_alg(token));
  errno = 0;
  const long exp = jwt_get_grant_int(token, "exp");
  if (errno == 0) out.expires_at = std::chrono::system_clock::time_point(std::chrono::seconds(exp));
  return out;
}

}  // namespace

std::optional<std::string> token_contents::claim(std::string_view name) const {
  const auto claims = nlohmann::json::parse(claims_json, nullptr, false);
  if (!claims.is_object()) return std::nullopt;
  const auto found = claims.find(name);
  if (found == claims.end() || !found->is_string()) return std::nullopt;
  return found->get<std::string>();
}

result<key_family> family_of_algorithm(std::string_view algorithm) {
  const auto alg = jwt_algorithm(algorithm);
  if (!alg) {
    return fail(errc::bad_key, fmt::format("algorithm '{}': use HS256, HS384, HS512, RS256, RS384, RS512, ES256, "
                                           "ES384 or ES512",
                                           algorithm));
  }
  switch (*alg) {
    case JWT_ALG_HS256:
    case JWT_ALG_HS384:
    case JWT_ALG_HS512: return key_family::hmac;
    case JWT_ALG_RS256:
    case JWT_ALG_RS384:
    case JWT_ALG_RS512: return key_family::rsa;
    default: return key_family::ec;
  }
}

result<std::string> create_token(std::string_view algorithm, std::string_view key, std::string_view subject,
                                 std::optional<std::chrono::system_clock::time_point> expires_at) {
  MAGNETAR_TRY(family, family_of_algorithm(algorithm));
  std::string signing_key(key);
  if (family != key_family::hmac) {
    MAGNETAR_TRY(pem, as_pem_private_key(key));
    signing_key = std::move(pem);
  } else if (signing_key.empty()) {
    return fail(errc::bad_key, "an empty secret key");
  }
  jwt_t* raw = nullptr;
  if (jwt_new(&raw) != 0) return fail(errc::bad_token, "out of memory");
  jwt_ptr token(raw, &jwt_free);
  const std::string sub(subject);
  if (jwt_add_grant(token.get(), "sub", sub.c_str()) != 0) return fail(errc::bad_token, "the subject can't be set");
  if (expires_at) {
    const auto seconds = std::chrono::duration_cast<std::chrono::seconds>(expires_at->time_since_epoch()).count();
    if (jwt_add_grant_int(token.get(), "exp", static_cast<long>(seconds)) != 0) {
      return fail(errc::bad_token, "the expiry can't be set");
    }
  }
  const auto alg = *jwt_algorithm(algorithm);
  if (jwt_set_alg(token.get(), alg, reinterpret_cast<const unsigned char*>(signing_key.data()),
                  static_cast<int>(signing_key.size())) != 0) {
    return fail(errc::bad_key, fmt::format("the key can't sign {}", algorithm));
  }
  auto encoded = take_string(jwt_encode_str(token.get()));
  if (encoded.empty())
    return fail(errc::bad_key, fmt::format("signing with {} failed: is the key of that kind?", algorithm));
  return encoded;
}

result<token_contents> decode_token(std::string_view token) {
  const std::string text(token);
  jwt_t* raw = nullptr;
  if (jwt_decode(&raw, text.c_str(), nullptr, 0) != 0 || !raw) return fail(errc::bad_token, "not a JSON Web Token");
  jwt_ptr decoded(raw, &jwt_free);
  return contents_of(decoded.get());
}

result<token_verifier> token_verifier::with_secret_key(std::string secret) {
  // An empty key would make the library skip the signature check.
  if (secret.empty()) return fail(errc::bad_key, "an empty secret key");
  return token_verifier(std::move(secret), key_family::hmac);
}

result<token_verifier> token_verifier::with_public_key(std::string_view der_or_pem) {
  MAGNETAR_TRY(pem, as_pem_public_key(der_or_pem));
  MAGNETAR_TRY(family, family_of_public_key(pem));
  return token_verifier(std::move(pem), family);
}

result<token_contents> token_verifier::verify(std::string_view token, std::chrono::system_clock::time_point now) const {
  const std::string text(token);
  jwt_t* raw = nullptr;
  if (jwt_decode(&raw, text.c_str(), reinterpret_cast<const unsigned char*>(_key.data()),
                 static_cast<int>(_key.size())) != 0 ||
      !raw) {
    return fail(errc::bad_token, "not a token signed with the configured key");
  }
  jwt_ptr decoded(raw, &jwt_free);
  auto contents = contents_of(decoded.get());
  const auto family = family_of_algorithm(contents.algorithm);
  if (!family || family.value() != _family) {
    return fail(errc::bad_token,
                fmt::format("a token signed with {}, which the configured key doesn't sign with", contents.algorithm));
  }
  if (contents.expires_at && *contents.expires_at <= now) return fail(errc::expired_token, "the token has expired");
  return contents;
}

}  // namespace magnetar::auth
