#include "http/url.h"

#include "base/errc.h"

#include <fmt/format.h>

#include <cctype>
#include <charconv>
#include <optional>

namespace magnetar::http {

namespace {

auto bad(std::string_view what, std::string_view text, std::string_view why) {
  return fail(base::errc::invalid_argument, fmt::format("bad {} '{}': {}", what, text, why));
}

}  // namespace

result<url> url::parse(std::string_view text, std::uint16_t default_port, std::string_view what) {
  url out;
  out.tls = text.starts_with("https://");
  const std::string_view scheme = out.tls ? "https://" : "http://";
  if (!text.starts_with(scheme)) return bad(what, text, "expected http[s]://host[:port][/path]");
  const std::string_view rest = text.substr(scheme.size());
  out.port = out.tls ? 443 : default_port;
  const auto slash = rest.find('/');
  const std::string_view authority = rest.substr(0, slash);
  if (slash != std::string_view::npos) {
    std::string_view prefix = rest.substr(slash);
    while (prefix.ends_with('/')) prefix.remove_suffix(1);
    out.prefix = std::string(prefix);
  }
  std::optional<std::string_view> port;
  if (authority.starts_with('[')) {
    const auto close = authority.find(']');
    if (close == std::string_view::npos) return bad(what, text, "unclosed '[' in the host");
    out.host = std::string(authority.substr(1, close - 1));
    const std::string_view after = authority.substr(close + 1);
    if (!after.empty() && !after.starts_with(':')) return bad(what, text, "expected ':' after ']'");
    if (!after.empty()) port = after.substr(1);
  } else {
    // Without brackets an IPv6 address can't be told from its port (RFC 3986 wants them).
    const auto colon = authority.find(':');
    if (colon != std::string_view::npos && authority.find(':', colon + 1) != std::string_view::npos) {
      return bad(what, text, "an IPv6 host goes in brackets: http://[::1]:8080");
    }
    out.host = std::string(authority.substr(0, colon));
    if (colon != std::string_view::npos) port = authority.substr(colon + 1);
  }
  if (out.host.empty()) return bad(what, text, "no host");
  if (port) {
    unsigned number = 0;
    const auto [end, ec] = std::from_chars(port->data(), port->data() + port->size(), number);
    if (port->empty() || ec != std::errc() || end != port->data() + port->size() || number == 0 || number > 65535) {
      return bad(what, text, fmt::format("'{}' is not a port", *port));
    }
    out.port = static_cast<std::uint16_t>(number);
  }
  return out;
}

std::string url::to_string() const {
  const bool v6 = host.find(':') != std::string::npos;
  return fmt::format("{}://{}{}{}:{}{}", tls ? "https" : "http", v6 ? "[" : "", host, v6 ? "]" : "", port, prefix);
}

std::string encode_path_segment(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (const unsigned char c : text) {
    if (std::isalnum(c) != 0 || c == '-' || c == '.' || c == '_' || c == '~') {
      out += static_cast<char>(c);
    } else {
      out += fmt::format("%{:02X}", c);
    }
  }
  return out;
}

}  // namespace magnetar::http
