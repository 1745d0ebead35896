#include "auth/client_credentials.h"

#include "auth/errc.h"

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <fstream>
#include <sstream>

namespace magnetar::auth {

namespace {

constexpr std::string_view token_plugin = "org.apache.pulsar.client.impl.auth.AuthenticationToken";
constexpr std::string_view tls_plugin = "org.apache.pulsar.client.impl.auth.AuthenticationTls";

std::string trimmed(std::string text) {
  const auto first = text.find_first_not_of(" \t\r\n");
  if (first == std::string::npos) return {};
  const auto last = text.find_last_not_of(" \t\r\n");
  return text.substr(first, last - first + 1);
}

}  // namespace

result<client_credentials> client_credentials::from(std::string_view plugin, std::string_view params) {
  client_credentials out;
  std::string text = trimmed(std::string(params));
  if (plugin == tls_plugin || plugin == "tls") {
    out._kind = kind::tls;
    // "tlsCertFile:/a,tlsKeyFile:/b" or {"tlsCertFile": "/a", "tlsKeyFile": "/b"}.
    const auto parsed = nlohmann::json::parse(text, nullptr, false);
    if (parsed.is_object()) {
      out._certificate_file = parsed.value("tlsCertFile", "");
      out._key_file = parsed.value("tlsKeyFile", "");
      return out;
    }
    std::size_t start = 0;
    while (start < text.size()) {
      auto end = text.find(',', start);
      if (end == std::string::npos) end = text.size();
      const auto pair = text.substr(start, end - start);
      const auto colon = pair.find(':');
      const auto key = trimmed(pair.substr(0, colon));
      const auto value = colon == std::string::npos ? std::string() : trimmed(pair.substr(colon + 1));
      if (key == "tlsCertFile") out._certificate_file = value;
      if (key == "tlsKeyFile") out._key_file = value;
      start = end + 1;
    }
    return out;
  }
  if (!plugin.empty() && plugin != token_plugin && plugin != "token") {
    return fail(errc::unknown_method, fmt::format("authentication plugin '{}' is not supported: use {} (token) or {} "
                                                  "(tls)",
                                                  plugin, token_plugin, tls_plugin));
  }
  if (text.starts_with("{")) {
    const auto parsed = nlohmann::json::parse(text, nullptr, false);
    if (!parsed.is_object() || !parsed.contains("token") || !parsed["token"].is_string()) {
      return fail(errc::bad_token, "authentication parameters: expected {\"token\": \"...\"}");
    }
    text = trimmed(parsed["token"].get<std::string>());
  }
  if (text.starts_with("file://")) {
    out._kind = kind::token_file;
    out._value = text.substr(std::string_view("file://").size());
    MAGNETAR_TRY(check, out.data());  // fails now for a missing file, not at the first connect
    (void)check;
    return out;
  }
  if (text.starts_with("token:")) text = trimmed(text.substr(std::string_view("token:").size()));
  if (text.empty()) return fail(errc::bad_token, "authentication parameters: the token is empty");
  out._kind = kind::token;
  out._value = std::move(text);
  return out;
}

result<std::string> client_credentials::data() const {
  if (_kind == kind::tls) return std::string();  // the certificate went in the handshake
  if (_kind != kind::token_file) return _value;
  std::ifstream in(_value);
  if (!in) return fail(errc::bad_token, fmt::format("cannot read the token file '{}'", _value));
  std::ostringstream content;
  content << in.rdbuf();
  auto token = trimmed(content.str());
  if (token.empty()) return fail(errc::bad_token, fmt::format("the token file '{}' is empty", _value));
  return token;
}

result<std::string> client_credentials::http_authorization() const {
  if (_kind == kind::none || _kind == kind::tls) return std::string();
  MAGNETAR_TRY(token, data());
  return "Bearer " + token;
}

}  // namespace magnetar::auth
