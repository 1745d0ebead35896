#include "tls/test_certificates.h"

#include "tls/errc.h"
#include "tls/tls_context.h"

#include <fmt/format.h>
#include <openssl/evp.h>
#include <openssl/pem.h>
#include <openssl/x509v3.h>

#include <atomic>
#include <cstdio>

namespace magnetar::tls {

namespace {

using key_ptr = std::unique_ptr<EVP_PKEY, decltype(&EVP_PKEY_free)>;
using cert_ptr = std::unique_ptr<X509, decltype(&X509_free)>;

result<void> failed(std::string what) { return fail(errc::bad_settings, fmt::format("{}: {}", what, last_error())); }

key_ptr new_key() { return key_ptr(EVP_EC_gen("P-256"), &EVP_PKEY_free); }

result<void> add_extension(X509* cert, X509* issuer, int nid, const std::string& value) {
  X509V3_CTX ctx;
  X509V3_set_ctx(&ctx, issuer, cert, nullptr, nullptr, 0);
  X509_EXTENSION* extension = X509V3_EXT_conf_nid(nullptr, &ctx, nid, value.c_str());
  if (extension == nullptr) return failed(fmt::format("extension '{}'", value));
  X509_add_ext(cert, extension, -1);
  X509_EXTENSION_free(extension);
  return success();
}

// Unsigned yet: the caller adds extensions, then signs.
result<cert_ptr> make_certificate(EVP_PKEY* key, const std::string& common_name, X509* issuer, long serial) {
  cert_ptr cert(X509_new(), &X509_free);
  X509_set_version(cert.get(), 2);
  ASN1_INTEGER_set(X509_get_serialNumber(cert.get()), serial);
  X509_gmtime_adj(X509_getm_notBefore(cert.get()), -3600);
  X509_gmtime_adj(X509_getm_notAfter(cert.get()), 24 * 3600);
  X509_set_pubkey(cert.get(), key);
  X509_NAME* name = X509_get_subject_name(cert.get());
  X509_NAME_add_entry_by_txt(name, "CN", MBSTRING_UTF8, reinterpret_cast<const unsigned char*>(common_name.c_str()), -1,
                             -1, 0);
  X509_set_issuer_name(cert.get(), issuer != nullptr ? X509_get_subject_name(issuer) : name);
  return cert;
}

result<void> write_pem(const std::filesystem::path& path, X509* cert, EVP_PKEY* key) {
  FILE* out = std::fopen(path.c_str(), "w");
  if (out == nullptr) return fail(errc::bad_settings, fmt::format("cannot write '{}'", path.string()));
  const bool ok = cert != nullptr ? PEM_write_X509(out, cert) == 1
                                  : PEM_write_PrivateKey(out, key, nullptr, nullptr, 0, nullptr, nullptr) == 1;
  std::fclose(out);
  if (!ok) return failed(fmt::format("writing '{}'", path.string()));
  return success();
}

}  // namespace

struct certificate_authority::keys {
  key_ptr key{nullptr, &EVP_PKEY_free};
  cert_ptr cert{nullptr, &X509_free};
};

result<certificate_authority> certificate_authority::create(const std::filesystem::path& dir) {
  certificate_authority out;
  out._dir = dir;
  out._certificate_file = dir / "ca.cert.pem";
  out._keys = std::make_shared<keys>();
  out._keys->key = new_key();
  if (!out._keys->key) return fail(failed("the CA's key").error());
  MAGNETAR_TRY(cert, make_certificate(out._keys->key.get(), "magnetar test CA", nullptr, 1));
  out._keys->cert = std::move(cert);
  X509* ca = out._keys->cert.get();
  MAGNETAR_TRY(add_extension(ca, ca, NID_basic_constraints, "critical,CA:TRUE"));
  MAGNETAR_TRY(add_extension(ca, ca, NID_key_usage, "critical,keyCertSign,cRLSign"));
  MAGNETAR_TRY(add_extension(ca, ca, NID_subject_key_identifier, "hash"));
  if (X509_sign(ca, out._keys->key.get(), EVP_sha256()) == 0) return fail(failed("signing the CA").error());
  MAGNETAR_TRY(write_pem(out._certificate_file, ca, nullptr));
  MAGNETAR_TRY(write_pem(dir / "ca.key.pem", nullptr, out._keys->key.get()));
  return out;
}

result<issued_certificate> certificate_authority::issue(const std::string& file_stem, const std::string& common_name,
                                                        const std::vector<std::string>& names) const {
  auto key = new_key();
  if (!key) return fail(failed("a key").error());
  static std::atomic<long> serial{2};
  MAGNETAR_TRY(cert, make_certificate(key.get(), common_name, _keys->cert.get(), serial++));
  MAGNETAR_TRY(add_extension(cert.get(), _keys->cert.get(), NID_basic_constraints, "critical,CA:FALSE"));
  MAGNETAR_TRY(add_extension(cert.get(), _keys->cert.get(), NID_ext_key_usage, "serverAuth,clientAuth"));
  if (!names.empty()) {
    std::string alt;
    for (const auto& n : names) {
      const bool ip = n.find_first_not_of("0123456789.") == std::string::npos || n.find(':') != std::string::npos;
      alt += fmt::format("{}{}:{}", alt.empty() ? "" : ",", ip ? "IP" : "DNS", n);
    }
    MAGNETAR_TRY(add_extension(cert.get(), _keys->cert.get(), NID_subject_alt_name, alt));
  }
  if (X509_sign(cert.get(), _keys->key.get(), EVP_sha256()) == 0) return fail(failed("signing").error());
  issued_certificate out{_dir / (file_stem + ".cert.pem"), _dir / (file_stem + ".key.pem")};
  MAGNETAR_TRY(write_pem(out.certificate_file, cert.get(), nullptr));
  MAGNETAR_TRY(write_pem(out.key_file, nullptr, key.get()));
  return out;
}

}  // namespace magnetar::tls
