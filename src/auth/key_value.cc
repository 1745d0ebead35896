#include "auth/key_value.h"

#include "auth/errc.h"

#include <fmt/format.h>
#include <openssl/bio.h>
#include <openssl/evp.h>
#include <openssl/pem.h>
#include <openssl/x509.h>
#include <boost/beast/core/detail/base64.hpp>

#include <cctype>
#include <filesystem>
#include <fstream>
#include <memory>
#include <sstream>

namespace magnetar::auth {
namespace {

namespace b64 = boost::beast::detail::base64;

using bio_ptr = std::unique_ptr<BIO, decltype(&BIO_free)>;
using key_ptr = std::unique_ptr<EVP_PKEY, decltype(&EVP_PKEY_free)>;

bool is_pem(std::string_view bytes) { return bytes.find("-----BEGIN ") != std::string_view::npos; }

std::string pem_of(EVP_PKEY* key, bool private_key) {
  bio_ptr out(BIO_new(BIO_s_mem()), &BIO_free);
  const int written = private_key ? PEM_write_bio_PrivateKey(out.get(), key, nullptr, nullptr, 0, nullptr, nullptr)
                                  : PEM_write_bio_PUBKEY(out.get(), key);
  if (written != 1) return {};
  char* data = nullptr;
  const long size = BIO_get_mem_data(out.get(), &data);
  return std::string(data, static_cast<std::size_t>(size));
}

result<std::string> as_pem(std::string_view der_or_pem, bool private_key) {
  bio_ptr in(BIO_new_mem_buf(der_or_pem.data(), static_cast<int>(der_or_pem.size())), &BIO_free);
  key_ptr key(nullptr, &EVP_PKEY_free);
  if (is_pem(der_or_pem)) {
    key.reset(private_key ? PEM_read_bio_PrivateKey(in.get(), nullptr, nullptr, nullptr)
                          : PEM_read_bio_PUBKEY(in.get(), nullptr, nullptr, nullptr));
  } else {
    key.reset(private_key ? d2i_PrivateKey_bio(in.get(), nullptr) : d2i_PUBKEY_bio(in.get(), nullptr));
  }
  const char* kind = private_key ? "private" : "public";
  if (!key) return fail(errc::bad_key, fmt::format("not a {} key (DER or PEM)", kind));
  auto pem = pem_of(key.get(), private_key);
  if (pem.empty()) return fail(errc::bad_key, fmt::format("the {} key could not be written as PEM", kind));
  return pem;
}

}  // namespace

std::string base64_encoded(std::string_view bytes) {
  std::string out(b64::encoded_size(bytes.size()), '\0');
  out.resize(b64::encode(out.data(), bytes.data(), bytes.size()));
  return out;
}

result<std::string> base64_decoded(std::string_view text) {
  std::string compact;
  for (const char c : text) {
    if (!std::isspace(static_cast<unsigned char>(c))) compact.push_back(c);
  }
  std::string out(b64::decoded_size(compact.size()), '\0');
  const auto [written, read] = b64::decode(out.data(), compact.data(), compact.size());
  // The decoder stops at the first character outside the alphabet; padding ends the text.
  if (compact.empty() || read != compact.size()) {
    if (read >= compact.size() || compact.find_first_not_of('=', read) != std::string::npos) {
      return fail(errc::bad_key, "not base64 text");
    }
  }
  out.resize(written);
  return out;
}

result<std::string> read_key_value(std::string_view value) {
  const auto read_file = [](const std::string& path) -> result<std::string> {
    std::ifstream in(path, std::ios::binary);
    if (!in) return fail(errc::bad_key, fmt::format("key file {} can't be read", path));
    std::ostringstream bytes;
    bytes << in.rdbuf();
    return bytes.str();
  };
  if (value.starts_with("file:")) {
    auto path = value.substr(5);
    if (path.starts_with("//")) path.remove_prefix(2);
    return read_file(std::string(path));
  }
  if (value.starts_with("data:")) {
    const auto comma = value.find(',');
    if (comma == std::string_view::npos) return fail(errc::bad_key, "a data: key has no ',' before its data");
    const auto media = value.substr(5, comma - 5);
    const auto data = value.substr(comma + 1);
    if (!media.ends_with(";base64")) return std::string(data);
    return base64_decoded(data);
  }
  const std::string path(value);
  if (std::error_code ignored; std::filesystem::is_regular_file(path, ignored)) return read_file(path);
  auto decoded = base64_decoded(value);
  if (!decoded) return fail(errc::bad_key, "a key that is neither a file (file:///path, or a path) nor base64 text");
  return decoded;
}

result<std::string> as_pem_public_key(std::string_view der_or_pem) { return as_pem(der_or_pem, false); }
result<std::string> as_pem_private_key(std::string_view der_or_pem) { return as_pem(der_or_pem, true); }

}  // namespace magnetar::auth
