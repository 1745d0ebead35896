#include "broker/api/advertised_listeners.h"

#include "base/errc.h"
#include "broker/api/errc.h"

#include <fmt/format.h>

#include <algorithm>
#include <set>

namespace magnetar::broker {
namespace {

std::string_view trim(std::string_view text) {
  constexpr std::string_view blanks = " \t";
  const auto first = text.find_first_not_of(blanks);
  if (first == std::string_view::npos) return {};
  return text.substr(first, text.find_last_not_of(blanks) - first + 1);
}

// The listener's field for `url`'s scheme, or null for a scheme a listener doesn't take.
std::string* slot_for(advertised_listener& l, std::string_view url) {
  if (url.starts_with("pulsar://")) return &l.broker_url;
  if (url.starts_with("pulsar+ssl://")) return &l.broker_url_tls;
  if (url.starts_with("http://")) return &l.http_url;
  if (url.starts_with("https://")) return &l.https_url;
  return nullptr;
}

// "host:port" of a URL whose scheme was checked.
result<std::string_view> address_of(std::string_view url) {
  const auto address = url.substr(url.find("://") + 3);
  const auto colon = address.rfind(':');
  const bool has_port = colon != std::string_view::npos && colon > 0 && colon + 1 < address.size() &&
                        std::all_of(address.begin() + static_cast<std::ptrdiff_t>(colon) + 1, address.end(),
                                    [](char c) { return c >= '0' && c <= '9'; });
  if (!has_port || address.find('/') != std::string_view::npos) {
    return fail(base::errc::invalid_argument, fmt::format("'{}' is not scheme://host:port", url));
  }
  return address;
}

}  // namespace

result<std::vector<advertised_listener>> parse_advertised_listeners(std::string_view text) {
  std::vector<advertised_listener> out;
  std::set<std::string, std::less<>> addresses;
  while (!text.empty()) {
    const auto comma = text.find(',');
    const auto entry = trim(text.substr(0, comma));
    text = comma == std::string_view::npos ? std::string_view() : text.substr(comma + 1);
    if (entry.empty()) continue;
    const auto colon = entry.find(':');
    if (colon == std::string_view::npos || colon == 0) {
      return fail(base::errc::invalid_argument, fmt::format("'{}' is not name:scheme://host:port", entry));
    }
    const auto name = entry.substr(0, colon);
    const auto url = entry.substr(colon + 1);
    auto it = std::find_if(out.begin(), out.end(), [&](const auto& l) { return l.name == name; });
    if (it == out.end()) it = out.insert(out.end(), advertised_listener{.name = std::string(name)});
    auto* slot = slot_for(*it, url);
    if (slot == nullptr) {
      return fail(base::errc::invalid_argument,
                  fmt::format("'{}': the scheme must be pulsar, pulsar+ssl, http or https", entry));
    }
    if (!slot->empty()) {
      return fail(base::errc::invalid_argument,
                  fmt::format("listener '{}' has two {} URLs", name, url.substr(0, url.find(':'))));
    }
    MAGNETAR_TRY(address, address_of(url));
    if (!addresses.emplace(address).second) {
      return fail(base::errc::invalid_argument, fmt::format("two listeners are given the address {}", address));
    }
    *slot = std::string(url);
  }
  return out;
}

const advertised_listener* internal_listener(const std::vector<advertised_listener>& listeners,
                                             std::string_view internal_name) {
  if (listeners.empty()) return nullptr;
  if (internal_name.empty()) return &listeners.front();
  auto it = std::find_if(listeners.begin(), listeners.end(), [&](const auto& l) { return l.name == internal_name; });
  return it == listeners.end() ? nullptr : &*it;
}

result<lookup_urls> lookup_urls_for(const std::vector<advertised_listener>& listeners, std::string_view name,
                                    const lookup_urls& defaults) {
  if (name.empty()) return defaults;
  auto it = std::find_if(listeners.begin(), listeners.end(), [&](const auto& l) { return l.name == name; });
  if (it == listeners.end()) {
    return fail(errc::service_not_ready, fmt::format("the broker do not have {} listener", name));
  }
  auto pick = [](const std::string& own, const std::string& fallback) { return own.empty() ? fallback : own; };
  return lookup_urls{.broker_url = pick(it->broker_url, defaults.broker_url),
                     .broker_url_tls = pick(it->broker_url_tls, defaults.broker_url_tls),
                     .http_url = pick(it->http_url, defaults.http_url),
                     .http_url_tls = pick(it->https_url, defaults.http_url_tls)};
}

}  // namespace magnetar::broker
