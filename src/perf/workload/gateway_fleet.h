// gateway_fleet: the gateways' Pulsar clients and producers.
//
// Each gateway is a client of its own (its own connection, as separate edge gateways
// would be) with one producer per topic, named `iot-gateway-<g>-topic-<t>` so that
// broker-side deduplication and diagnostics refer to the same logical endpoint in every
// run. Producers batch by key (one device per batch), as Key_Shared consumption needs.
//
// Producers open at once (precreate) or on first use. producer_for() is called by the
// one sending thread only; the producers' own calls are thread-safe.
#pragma once

#include "base/result.h"
#include "magnetar/client.h"
#include "perf/scenario/settings.h"

#include <string>
#include <vector>

namespace magnetar::perf {

class gateway_fleet {
 public:
  gateway_fleet(const iot_telemetry_settings& settings, std::string service_url);
  ~gateway_fleet();

  // Creates the gateways' clients, and with precreate every producer (in parallel).
  result<void> open();
  // The producer of gateway g for topic t, opened now if it is not yet.
  result<producer*> producer_for(int gateway, int topic);
  // Flushes and closes every producer, then the clients.
  void close();

  static std::string producer_name(int gateway, int topic);

 private:
  result<void> precreate();
  producer_config config_for(int gateway, int topic) const;

  const iot_telemetry_settings& _settings;
  std::string _service_url;
  std::vector<client> _clients;
  // [gateway * topics + topic]; a default-constructed producer is not open yet.
  std::vector<producer> _producers;
  std::vector<bool> _open;
};

}  // namespace magnetar::perf
