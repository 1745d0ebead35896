// key_generation: new keys for `magnetar tokens create-secret-key|create-key-pair`, as
// upstream's tool makes them: a secret of the algorithm's hash size in random bytes
// (HS256: 32), or an RSA (2048 bits) or EC (P-256/384/521) pair, written DER: the
// private key PKCS#8, the public key X.509 SubjectPublicKeyInfo.
//
// Thread-safety: pure functions (OpenSSL's random source).
#pragma once

#include "base/result.h"

#include <string>
#include <string_view>

namespace magnetar::auth {

// errc::bad_key for an algorithm that isn't HS256/384/512.
result<std::string> generate_secret_key(std::string_view algorithm);

struct key_pair {
  std::string private_der;
  std::string public_der;
};
// errc::bad_key for an algorithm that isn't RS256/384/512 or ES256/384/512.
result<key_pair> generate_key_pair(std::string_view algorithm);

}  // namespace magnetar::auth
