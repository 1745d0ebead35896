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
#include "tls/settings.h"

#include <boost/asio/ssl.hpp>

#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace magnetar::tls {

namespace ssl = boost::asio::ssl;

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
