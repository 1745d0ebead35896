#include "auth/key_generation.h"

#include "auth/errc.h"
#include "auth/jwt_token.h"

#include <fmt/format.h>
#include <openssl/evp.h>
#include <openssl/rand.h>
#include <openssl/x509.h>

#include <memory>

namespace magnetar::auth {
namespace {

using key_ptr = std::unique_ptr<EVP_PKEY, decltype(&EVP_PKEY_free)>;

// The DER encoding by an OpenSSL i2d_* function.
template <class Encode>
std::string der_of(EVP_PKEY* key, Encode encode) {
  unsigned char* out = nullptr;
  const int size = encode(key, &out);
  if (size <= 0) return {};
  std::string der(reinterpret_cast<const char*>(out), static_cast<std::size_t>(size));
  OPENSSL_free(out);
  return der;
}

int private_pkcs8(EVP_PKEY* key, unsigned char** out) {
  std::unique_ptr<PKCS8_PRIV_KEY_INFO, decltype(&PKCS8_PRIV_KEY_INFO_free)> info(EVP_PKEY2PKCS8(key),
                                                                                 &PKCS8_PRIV_KEY_INFO_free);
  return info ? i2d_PKCS8_PRIV_KEY_INFO(info.get(), out) : -1;
}

int public_spki(EVP_PKEY* key, unsigned char** out) { return i2d_PUBKEY(key, out); }

}  // namespace

result<std::string> generate_secret_key(std::string_view algorithm) {
  MAGNETAR_TRY(family, family_of_algorithm(algorithm));
  if (family != key_family::hmac) {
    return fail(errc::bad_key, fmt::format("{} signs with a key pair: use create-key-pair", algorithm));
  }
  const std::size_t bytes = algorithm == "HS512" ? 64 : algorithm == "HS384" ? 48 : 32;
  std::string secret(bytes, '\0');
  if (RAND_bytes(reinterpret_cast<unsigned char*>(secret.data()), static_cast<int>(bytes)) != 1) {
    return fail(errc::bad_key, "no random bytes from OpenSSL");
  }
  return secret;
}

result<key_pair> generate_key_pair(std::string_view algorithm) {
  MAGNETAR_TRY(family, family_of_algorithm(algorithm));
  key_ptr key(nullptr, &EVP_PKEY_free);
  if (family == key_family::rsa) {
    key.reset(EVP_RSA_gen(2048));
  } else if (family == key_family::ec) {
    const char* curve = algorithm == "ES512" ? "P-521" : algorithm == "ES384" ? "P-384" : "P-256";
    key.reset(EVP_EC_gen(curve));
  } else {
    return fail(errc::bad_key, fmt::format("{} signs with a secret key: use create-secret-key", algorithm));
  }
  if (!key) return fail(errc::bad_key, fmt::format("OpenSSL could not generate a {} key pair", algorithm));
  key_pair out{der_of(key.get(), private_pkcs8), der_of(key.get(), public_spki)};
  if (out.private_der.empty() || out.public_der.empty()) return fail(errc::bad_key, "the key pair can't be encoded");
  return out;
}

}  // namespace magnetar::auth
