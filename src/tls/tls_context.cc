#include "tls/tls_context.h"

#include "tls/errc.h"

#include <fmt/format.h>
#include <openssl/err.h>
#include <openssl/ssl.h>
#include <openssl/x509v3.h>

#include <algorithm>

namespace magnetar::tls {

namespace {

result<void> bad(std::string what) {
  const auto reason = last_error();
  return fail(errc::bad_settings, reason.empty() ? what : fmt::format("{}: {}", what, reason));
}

int version_of(const std::string& name) {
  if (name == "TLSv1.2") return TLS1_2_VERSION;
  if (name == "TLSv1.3") return TLS1_3_VERSION;
  return 0;
}

// tlsProtocols: the lowest and highest named (OpenSSL takes a range).
result<void> set_protocols(SSL_CTX* ctx, const std::vector<std::string>& protocols) {
  int lowest = TLS1_2_VERSION, highest = TLS1_3_VERSION;
  if (!protocols.empty()) {
    lowest = TLS1_3_VERSION;
    highest = TLS1_2_VERSION;
    for (const auto& name : protocols) {
      const int version = version_of(name);
      if (version == 0) {
        return fail(errc::bad_settings, fmt::format("tlsProtocols: '{}' is not one of TLSv1.2, TLSv1.3", name));
      }
      lowest = std::min(lowest, version);
      highest = std::max(highest, version);
    }
  }
  if (SSL_CTX_set_min_proto_version(ctx, lowest) != 1 || SSL_CTX_set_max_proto_version(ctx, highest) != 1) {
    return bad("tlsProtocols");
  }
  return success();
}

result<void> set_ciphers(SSL_CTX* ctx, const std::vector<std::string>& ciphers) {
  if (ciphers.empty()) return success();
  std::string list;
  for (const auto& c : ciphers) list += (list.empty() ? "" : ":") + c;
  if (SSL_CTX_set_cipher_list(ctx, list.c_str()) != 1) return bad(fmt::format("tlsCiphers '{}'", list));
  return success();
}

result<void> load_own(SSL_CTX* ctx, const std::string& certificate, const std::string& key, std::string_view who) {
  if (SSL_CTX_use_certificate_chain_file(ctx, certificate.c_str()) != 1) {
    return bad(fmt::format("{} certificate '{}'", who, certificate));
  }
  if (SSL_CTX_use_PrivateKey_file(ctx, key.c_str(), SSL_FILETYPE_PEM) != 1) {
    return bad(fmt::format("{} key '{}'", who, key));
  }
  if (SSL_CTX_check_private_key(ctx) != 1) {
    return bad(fmt::format("{} key '{}' does not match certificate '{}'", who, key, certificate));
  }
  return success();
}

}  // namespace

std::string last_error() {
  std::string out;
  while (const auto code = ERR_get_error()) {
    char text[256];
    ERR_error_string_n(code, text, sizeof text);
    out = text;  // the last one is the most specific
  }
  return out;
}

result<std::shared_ptr<ssl::context>> make_server_context(const server_settings& settings) {
  ERR_clear_error();
  auto context = std::make_shared<ssl::context>(ssl::context::tls_server);
  SSL_CTX* ctx = context->native_handle();
  if (settings.certificate_file.empty() || settings.key_file.empty()) {
    return fail(errc::bad_settings, "TLS needs tlsCertificateFilePath and tlsKeyFilePath");
  }
  MAGNETAR_TRY(load_own(ctx, settings.certificate_file, settings.key_file, "the server's"));
  MAGNETAR_TRY(set_protocols(ctx, settings.protocols));
  MAGNETAR_TRY(set_ciphers(ctx, settings.ciphers));
  SSL_CTX_set_options(ctx, SSL_OP_NO_RENEGOTIATION | SSL_OP_CIPHER_SERVER_PREFERENCE);
  if (!settings.trust_certs_file.empty()) {
    if (SSL_CTX_load_verify_locations(ctx, settings.trust_certs_file.c_str(), nullptr) != 1) {
      return fail(bad(fmt::format("tlsTrustCertsFilePath '{}'", settings.trust_certs_file)).error());
    }
    int mode = SSL_VERIFY_PEER;
    if (settings.require_trusted_client_cert) mode |= SSL_VERIFY_FAIL_IF_NO_PEER_CERT;
    SSL_CTX_set_verify(ctx, mode, nullptr);
  } else if (settings.require_trusted_client_cert) {
    return fail(errc::bad_settings, "tlsRequireTrustedClientCertOnConnect needs tlsTrustCertsFilePath");
  }
  return context;
}

result<std::shared_ptr<ssl::context>> make_client_context(const client_settings& settings) {
  ERR_clear_error();
  auto context = std::make_shared<ssl::context>(ssl::context::tls_client);
  SSL_CTX* ctx = context->native_handle();
  MAGNETAR_TRY(set_protocols(ctx, {}));
  if (!settings.trust_certs_file.empty()) {
    if (SSL_CTX_load_verify_locations(ctx, settings.trust_certs_file.c_str(), nullptr) != 1) {
      return fail(bad(fmt::format("tlsTrustCertsFilePath '{}'", settings.trust_certs_file)).error());
    }
  } else if (SSL_CTX_set_default_verify_paths(ctx) != 1) {
    return fail(bad("the system's CA certificates").error());
  }
  SSL_CTX_set_verify(ctx, settings.allow_insecure_connection ? SSL_VERIFY_NONE : SSL_VERIFY_PEER, nullptr);
  if (!settings.certificate_file.empty()) {
    MAGNETAR_TRY(load_own(ctx, settings.certificate_file, settings.key_file, "the client's"));
  }
  return context;
}

result<void> prepare_client(SSL* ssl, const client_settings& settings, const std::string& host) {
  ERR_clear_error();
  if (SSL_set_tlsext_host_name(ssl, host.c_str()) != 1) return bad(fmt::format("server name '{}'", host));
  if (settings.hostname_verification && !settings.allow_insecure_connection) {
    // An IP address is checked against the certificate's IP entries, a name against its DNS names.
    X509_VERIFY_PARAM* param = SSL_get0_param(ssl);
    X509_VERIFY_PARAM_set_hostflags(param, X509_CHECK_FLAG_NO_PARTIAL_WILDCARDS);
    const bool is_ip = X509_VERIFY_PARAM_set1_ip_asc(param, host.c_str()) == 1;
    if (!is_ip && X509_VERIFY_PARAM_set1_host(param, host.c_str(), host.size()) != 1) {
      return bad(fmt::format("hostname verification for '{}'", host));
    }
  }
  return success();
}

std::optional<std::string> peer_common_name(SSL* ssl) {
  X509* peer = SSL_get1_peer_certificate(ssl);
  if (peer == nullptr) return std::nullopt;
  std::optional<std::string> out;
  X509_NAME* subject = X509_get_subject_name(peer);
  const int at = X509_NAME_get_index_by_NID(subject, NID_commonName, -1);
  if (at >= 0) {
    ASN1_STRING* data = X509_NAME_ENTRY_get_data(X509_NAME_get_entry(subject, at));
    unsigned char* utf8 = nullptr;
    const int length = ASN1_STRING_to_UTF8(&utf8, data);
    if (length >= 0) out = std::string(reinterpret_cast<char*>(utf8), static_cast<std::size_t>(length));
    OPENSSL_free(utf8);
  }
  X509_free(peer);
  return out;
}

}  // namespace magnetar::tls
