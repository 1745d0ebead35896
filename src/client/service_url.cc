#include "client/service_url.h"

#include "magnetar/errc.h"

#include <fmt/format.h>

#include <charconv>

namespace magnetar::client_detail {

std::string broker_address::to_string() const { return fmt::format("{}{}:{}", tls ? "ssl:" : "", host, port); }

namespace {

result<broker_address> parse_host_port(std::string_view text, std::string_view url, bool tls) {
  broker_address a;
  a.tls = tls;
  if (tls) a.port = 6651;
  std::string_view host = text;
  std::string_view port;
  if (!text.empty() && text.front() == '[') {  // [ipv6]:port
    const auto close = text.find(']');
    if (close == std::string_view::npos) {
      return fail(client_errc::invalid_service_url, fmt::format("'{}': unclosed [", url));
    }
    host = text.substr(1, close - 1);
    if (close + 1 < text.size()) {
      if (text[close + 1] != ':') return fail(client_errc::invalid_service_url, fmt::format("'{}': bad host", url));
      port = text.substr(close + 2);
    }
  } else if (const auto colon = text.rfind(':'); colon != std::string_view::npos) {
    host = text.substr(0, colon);
    port = text.substr(colon + 1);
  }
  if (host.empty()) return fail(client_errc::invalid_service_url, fmt::format("'{}': no host", url));
  a.host = std::string(host);
  if (!port.empty()) {
    unsigned value = 0;
    const auto [end, ec] = std::from_chars(port.data(), port.data() + port.size(), value);
    if (ec != std::errc() || end != port.data() + port.size() || value == 0 || value > 65535) {
      return fail(client_errc::invalid_service_url, fmt::format("'{}': bad port '{}'", url, port));
    }
    a.port = static_cast<std::uint16_t>(value);
  }
  return a;
}

}  // namespace

result<std::vector<broker_address>> parse_service_url(std::string_view url) {
  constexpr std::string_view plain = "pulsar://";
  constexpr std::string_view secure = "pulsar+ssl://";
  const bool tls = url.starts_with(secure);
  if (!tls && !url.starts_with(plain)) {
    return fail(client_errc::invalid_service_url,
                fmt::format("'{}': expected pulsar://host:port or pulsar+ssl://host:port", url));
  }
  std::string_view rest = url.substr(tls ? secure.size() : plain.size());
  while (!rest.empty() && rest.back() == '/') rest.remove_suffix(1);
  std::vector<broker_address> out;
  while (true) {
    const auto comma = rest.find(',');
    MAGNETAR_TRY(a, parse_host_port(rest.substr(0, comma), url, tls));
    out.push_back(std::move(a));
    if (comma == std::string_view::npos) break;
    rest.remove_prefix(comma + 1);
  }
  return out;
}

result<broker_address> parse_broker_url(std::string_view url) {
  MAGNETAR_TRY(all, parse_service_url(url));
  if (all.size() != 1) return fail(client_errc::invalid_service_url, fmt::format("'{}': one address expected", url));
  return std::move(all.front());
}

}  // namespace magnetar::client_detail
