// tls_context: OpenSSL contexts (through Boost.Asio's ssl) for magnetar's TLS ends, built
// from the settings Pulsar users know: the broker's tlsCertificateFilePath,
// tlsKeyFilePath, tlsTrustCertsFilePath, tlsRequireTrustedClientCertOnConnect,
// tlsProtocols and tlsCiphers; a client's tlsTrustCertsFilePath,
// tlsAllowInsecureConnection, tlsHostnameVerificationEnable and its own certificate.
//
// Files are PEM. A context is built once (and again when its files change, by the
// caller) and shared by every connection made with it; a file that can't be read fails
// the build with its name, so a bad path fails a broker's start, not its first client.
//
// Thread-safety: building is a pure function; a built context is used by many
// connections at once, as OpenSSL allows.
#pragma once

#include "base/result.h"
#include "io/asio.h"

#include <boost/asio/ssl.hpp>

#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace magnetar::tls {

namespace ssl = boost::asio::ssl;

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

// errc::bad_settings naming the file or value at fault.
result<std::shared_ptr<ssl::context>> make_server_context(const server_settings& settings);
result<std::shared_ptr<ssl::context>> make_client_context(const client_settings& settings);

// Before a client handshake: SNI for `host`, and its name checked against the
// certificate when hostname verification is on.
result<void> prepare_client(SSL* ssl, const client_settings& settings, const std::string& host);

// The common name of the peer's verified certificate (the TLS authentication
// provider's role); nullopt when it sent none.
std::optional<std::string> peer_common_name(SSL* ssl);

// The last OpenSSL error as text ("" when none), for messages.
std::string last_error();

}  // namespace magnetar::tls
