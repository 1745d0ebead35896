// broker_context: what a client connection and its command handlers use of the broker
// they run in: its settings and clock, the topics, the scalable-topic service, the URL
// lookups answer with, producer names, who clients are, and where a closing connection
// reports. The
// broker service implements it; the protocol layer sits below the service (which
// accepts the connections) and knows it only through this.
//
// Thread-safe: every call may come from any shard.
#pragma once

#include "base/clock.h"
#include "broker/api/broker_config.h"

#include <cstdint>
#include <string>

namespace magnetar::auth {
class authenticator;
}

namespace magnetar::broker {

class access_control;
class topic_registry;
class topic_ownership;
namespace scalable {
class scalable_service;
}

class broker_context {
 public:
  virtual ~broker_context() = default;

  virtual const broker_config& config() const = 0;
  virtual base::clock& clock() = 0;
  virtual topic_registry& topics() = 0;
  // Exists while the broker serves (between start and stop), as the connections do.
  virtual scalable::scalable_service& scalable() = 0;
  // What lookups answer: pulsar://<advertisedAddress>:<port>.
  virtual std::string service_url() const = 0;
  // pulsar+ssl://<advertisedAddress>:<TLS port>; empty without brokerServicePortTls.
  virtual std::string service_url_tls() const = 0;
  // The cluster's ownership of topics; null for a standalone, which serves them all.
  virtual topic_ownership* ownership() = 0;
  // A name for a producer that did not choose one, unique in the cluster.
  virtual std::string new_producer_name() = 0;
  // Who clients are (authenticationEnabled); null when anyone may connect.
  virtual const auth::authenticator* authenticator() const = 0;
  // What a client's role may do (authorizationEnabled); null when anyone may do anything.
  virtual const access_control* access() const = 0;
  // The connection's read loop ended: it is gone from the broker's list, its scalable
  // watches end.
  virtual void connection_closed(std::uint64_t connection_id) = 0;
};

}  // namespace magnetar::broker
