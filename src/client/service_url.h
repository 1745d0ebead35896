// service_url: a Pulsar service URL, pulsar://host:port[,host:port...], parsed into its
// addresses; the client connects to them in turn for lookups.
// A plain value type.
#pragma once

#include "base/result.h"

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace magnetar::client_detail {

struct broker_address {
  std::string host;
  std::uint16_t port = 6650;
  bool tls = false;  // pulsar+ssl://

  // "host:port", the key of the connection pool.
  std::string to_string() const;
  friend bool operator==(const broker_address&, const broker_address&) = default;
};

// pulsar://host:port[,host:port...] or pulsar+ssl://... (TLS). Errors:
// client_errc::invalid_service_url (other schemes; missing host; bad port). A missing
// port means 6650 (6651 with TLS).
result<std::vector<broker_address>> parse_service_url(std::string_view url);

// One address, pulsar://host:port or pulsar+ssl://host:port (what lookups answer).
result<broker_address> parse_broker_url(std::string_view url);

}  // namespace magnetar::client_detail
