// key_value: the key material of a token setting, in the forms Pulsar's settings and
// `pulsar tokens` take, tried in this order: "file:///path/to/key" (the file's bytes),
// "data:;base64,<text>" (the decoded text; "data:,<text>" the text itself), the path of
// an existing file (its bytes), and else the value as base64 text. A key file is taken
// as it is: neither trimmed nor decoded.
//
// Keys come raw (a secret key is its bytes) or, for the RSA and EC pairs that
// `tokens create-key-pair` writes, DER (PKCS#8 private, X.509 SubjectPublicKeyInfo
// public) as upstream's tools write them, or PEM as OpenSSL's do. as_pem_*() turn
// either into PEM, which is what the JWT library reads.
//
// Thread-safety: pure functions (reading a file).
#pragma once

#include "base/result.h"

#include <string>
#include <string_view>

namespace magnetar::auth {

// errc::bad_key naming the value's problem (an unreadable file, neither a file nor base64).
result<std::string> read_key_value(std::string_view value);

std::string base64_encoded(std::string_view bytes);
// errc::bad_key when `text` isn't base64.
result<std::string> base64_decoded(std::string_view text);

// A public or private key, DER or PEM, as PEM; errc::bad_key when it is neither.
result<std::string> as_pem_public_key(std::string_view der_or_pem);
result<std::string> as_pem_private_key(std::string_view der_or_pem);

}  // namespace magnetar::auth
