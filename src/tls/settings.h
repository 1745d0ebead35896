// settings: what a TLS end is configured with, as Pulsar names it (tls_context.h builds
// OpenSSL contexts from them). Plain values, light to include (a broker's config holds
// them).
#pragma once

#include <string>
#include <vector>

namespace magnetar::tls {

struct server_settings {
  std::string certificate_file;  // the server's chain, leaf first
  std::string key_file;
  // CAs whose client certificates are trusted; empty: client certificates are not asked for.
  std::string trust_certs_file;
  bool require_trusted_client_cert = false;  // refuse clients without a trusted certificate
  std::vector<std::string> protocols;        // "TLSv1.2", "TLSv1.3"; empty: both
  std::vector<std::string> ciphers;          // OpenSSL's names (TLS 1.2 suites); empty: its defaults
};

struct client_settings {
  std::string trust_certs_file;            // empty: the system's CAs
  bool allow_insecure_connection = false;  // accept any server certificate
  bool hostname_verification = false;      // the certificate must name the host dialled
  std::string certificate_file;            // the client's own (mutual TLS); empty: none
  std::string key_file;
};

}  // namespace magnetar::tls
