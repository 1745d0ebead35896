// standalone: one process serving everything a Pulsar application needs: the broker,
// an embedded bookie, the embedded metadata store, and the admin REST API
// (`magnetar standalone`, like `pulsar standalone`).
//
// Data lives under dataDir: metadata/ (RocksDB), bookie/journal-<n>/ and
// bookie/ledgers/. Starting again on the same directory recovers everything that was
// acknowledged. start() and stop() run on the caller's thread (main, or a test), which
// must not be one of the standalone's own shards.
#pragma once

#include "base/clock.h"
#include "base/result.h"
#include "broker/api/broker_config.h"

#include <cstdint>
#include <memory>
#include <string>

namespace magnetar::broker {

class standalone {
 public:
  explicit standalone(broker_config config);
  ~standalone();
  standalone(const standalone&) = delete;
  standalone& operator=(const standalone&) = delete;

  // Opens storage (replaying the journals), starts the shards and both listeners.
  result<void> start();
  // Stops listening, closes connections and topics, flushes storage. Idempotent.
  void stop();

  std::uint16_t broker_port() const;
  std::uint16_t broker_tls_port() const;  // 0 without brokerServicePortTls
  std::uint16_t web_port() const;
  std::string service_url() const;          // pulsar://advertisedAddress:port
  std::string web_service_url() const;      // http://advertisedAddress:port ("" with it off)
  std::uint16_t web_tls_port() const;       // 0 without webServicePortTls
  std::string web_service_url_tls() const;  // https://advertisedAddress:port, or ""
  const broker_config& config() const { return _config; }

 private:
  struct parts;
  broker_config _config;
  std::unique_ptr<parts> _parts;
  bool _started = false;
};

}  // namespace magnetar::broker
