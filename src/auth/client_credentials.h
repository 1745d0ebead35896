// client_credentials: what a client presents to a broker, from the authentication plugin
// and parameters Pulsar's clients are configured with (a client's authPlugin/authParams,
// a broker's brokerClientAuthenticationPlugin/Parameters, pulsar-admin's --auth-plugin
// and --auth-params).
//
// The token plugin (org.apache.pulsar.client.impl.auth.AuthenticationToken, or "token";
// also assumed when only parameters are given) takes the token as "token:<jwt>",
// "file:///path/to/token" (read at every use, so a rotated file is picked up, as
// upstream does), JSON {"token": "..."}, or the bare token.
//
// The TLS plugin (org.apache.pulsar.client.impl.auth.AuthenticationTls, or "tls")
// presents the client's certificate in the TLS handshake, its CN the role; its
// parameters may name the files ("tlsCertFile:/path,tlsKeyFile:/path" or JSON with those
// keys), else the client's TLS settings hold them.
//
// Thread-safety: a value; const calls may run concurrently.
#pragma once

#include "base/result.h"

#include <string>
#include <string_view>

namespace magnetar::auth {

class client_credentials {
 public:
  // No credentials: CONNECT says method "none".
  client_credentials() = default;
  // errc::unknown_method for a plugin magnetar doesn't have; errc::bad_token for
  // parameters it can't read (an empty token, bad JSON).
  static result<client_credentials> from(std::string_view plugin, std::string_view params);

  bool empty() const { return _kind == kind::none; }
  // CONNECT's auth_method_name: "token", "tls", or "none".
  std::string_view method() const { return _kind == kind::none ? "none" : _kind == kind::tls ? "tls" : "token"; }
  // The TLS plugin's certificate and key files (empty when its parameters name none).
  const std::string& tls_certificate_file() const { return _certificate_file; }
  const std::string& tls_key_file() const { return _key_file; }
  // CONNECT's auth_data: the token (read from its file now); empty for none.
  result<std::string> data() const;
  // The HTTP Authorization header: "Bearer <token>"; empty for none.
  result<std::string> http_authorization() const;

 private:
  enum class kind { none, token, token_file, tls };
  kind _kind = kind::none;
  std::string _value;  // the token, or its file's path
  std::string _certificate_file;
  std::string _key_file;
};

}  // namespace magnetar::auth
