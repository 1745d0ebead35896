// client_channel: what a topic, a subscription or the scalable-topic service needs of the
// client connection its producer, consumer or watch came on: a way to answer, and who it
// is. The protocol layer's connection implements it; the layers below it know only this,
// so that the topic engine does not depend on the connection that carries its frames.
//
// Thread-safe: send() and publish_completed() may be called from any shard (a topic
// answers from its own); the rest are values fixed at the connection's start or atomics.
#pragma once

#include "io/asio.h"
#include "wire/shared_bytes.h"

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace magnetar::broker {

class client_channel {
 public:
  virtual ~client_channel() = default;

  // Queues a frame (and optionally a stored entry written right after it, without a
  // copy); frames go out in the order of the calls.
  virtual void send(std::vector<std::byte> frame, wire::shared_bytes tail = {}) = 0;
  // A SEND handed to a topic was answered (receipt or error): publish back-pressure
  // releases one slot.
  virtual void publish_completed() = 0;
  virtual bool is_closed() const = 0;

  virtual std::uint64_t id() const = 0;
  virtual const std::string& remote_address() const = 0;
  virtual const std::string& connected_since() const = 0;
  // What the client said it is in CONNECT ("Pulsar-CPP-v3.5.0"); empty when it said nothing.
  virtual const std::string& client_version() const = 0;

  // Whether the client still answers, for a producer (or consumer) that comes back under
  // a name this connection holds: a PING goes out and any frame within `timeout` says
  // yes. A connection that stays silent (its client gone without a FIN, as behind a NAT
  // that forgot it) is closed, releasing what it held, and false is the answer. From any
  // shard; resumes on the caller's.
  virtual awaitable<bool> check_liveness(std::chrono::milliseconds timeout) = 0;
};

}  // namespace magnetar::broker
