// test_certificates: a throwaway certificate authority and certificates it signs, as PEM
// files, for tests and local trials of TLS (never for production: the keys sit next to
// the certificates, unprotected). EC P-256 keys; valid from an hour ago for a day.
//
//   auto ca = certificate_authority::create(dir).value();     // dir/ca.cert.pem
//   auto server = ca.issue("server", "localhost", {"localhost", "127.0.0.1"}).value();
//   auto client = ca.issue("app", "app", {}).value();        // CN "app": the TLS role
//
// Thread-safety: a value; issue() may run concurrently (each call writes its own files).
#pragma once

#include "base/result.h"

#include <filesystem>
#include <memory>
#include <string>
#include <vector>

namespace magnetar::tls {

struct issued_certificate {
  std::filesystem::path certificate_file;
  std::filesystem::path key_file;
};

class certificate_authority {
 public:
  // Writes <dir>/ca.cert.pem and <dir>/ca.key.pem.
  static result<certificate_authority> create(const std::filesystem::path& dir);

  const std::filesystem::path& certificate_file() const { return _certificate_file; }
  // A certificate for `common_name`, with `names` as its subjectAltName entries (IP
  // addresses or DNS names), written as <dir>/<file_stem>.cert.pem and .key.pem.
  result<issued_certificate> issue(const std::string& file_stem, const std::string& common_name,
                                   const std::vector<std::string>& names) const;

 private:
  struct keys;
  std::filesystem::path _dir;
  std::filesystem::path _certificate_file;
  std::shared_ptr<keys> _keys;  // the CA's key and certificate
};

}  // namespace magnetar::tls
