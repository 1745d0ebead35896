// advertised_listeners: the names under which a broker is reached from different networks
// (upstream's advertisedListeners / internalListenerName), and the URLs a lookup answers
// for the listener a client asks for.
//
//   advertisedListeners=internal:pulsar://10.0.0.5:6650,external:pulsar://broker.example.com:6650,
//                       external:http://broker.example.com:8080
//
// Each entry is `name:scheme://host:port`, scheme one of pulsar, pulsar+ssl, http, https;
// a name has at most one URL of each scheme, and two listeners never share an address.
// Plain values and pure functions; thread-safe.
#pragma once

#include "base/result.h"

#include <string>
#include <string_view>
#include <vector>

namespace magnetar::broker {

struct advertised_listener {
  std::string name;
  std::string broker_url;      // pulsar://
  std::string broker_url_tls;  // pulsar+ssl://
  std::string http_url;        // http://
  std::string https_url;       // https://
};

// base::errc::invalid_argument naming the entry that is wrong.
result<std::vector<advertised_listener>> parse_advertised_listeners(std::string_view text);

// The listener the broker's own parts use (internalListenerName; the first listener when
// that is empty), or null when there are no listeners or none has that name.
const advertised_listener* internal_listener(const std::vector<advertised_listener>& listeners,
                                             std::string_view internal_name);

// What a lookup answers: where the topic's broker is reached (empty: not offered).
struct lookup_urls {
  std::string broker_url;
  std::string broker_url_tls;
  std::string http_url;
  std::string http_url_tls;
};

// The URLs of listener `name` (its empty URLs filled from `defaults`), or `defaults` when
// `name` is empty. errc::service_not_ready with upstream's message when the broker has no
// listener of that name (upstream clients retry that on another broker).
result<lookup_urls> lookup_urls_for(const std::vector<advertised_listener>& listeners, std::string_view name,
                                    const lookup_urls& defaults);

}  // namespace magnetar::broker
