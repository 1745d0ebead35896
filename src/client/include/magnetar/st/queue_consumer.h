// st::queue_consumer: consumes a scalable topic as a work queue: every segment, active
// and sealed, is subscribed Shared under the same subscription, and their messages fan
// into one receive queue. No per-key order; any number of queue consumers share the
// load. It does not register with the topic's controller.
//
// Made by st::client::subscribe_queue. The consumer follows the layout the broker
// pushes: segments that appear are subscribed, those that leave the layout are closed.
// A sealed segment this subscription has read to its end is closed and not subscribed
// again. Acks and negative acks go to the segment the id names; an id of a segment no
// longer consumed is ignored (the broker delivers the message again).
//
// Threading: a handle (copies share one consumer); every call is thread-safe. Blocking
// receives on a client io thread fail with invalid_argument.
#pragma once

#include "base/result.h"
#include "magnetar/st/message.h"
#include "magnetar/st/message_id.h"

#include <chrono>
#include <cstddef>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace magnetar::st {

namespace detail {
class st_queue_consumer;
}

class queue_consumer {
 public:
  queue_consumer();
  ~queue_consumer();
  queue_consumer(const queue_consumer&);
  queue_consumer& operator=(const queue_consumer&);
  queue_consumer(queue_consumer&&) noexcept;
  queue_consumer& operator=(queue_consumer&&) noexcept;

  // The next message, waiting as long as needed (or `timeout`: client_errc::timeout).
  // Errors: already_closed, invalid_argument (on an io thread).
  result<message> receive();
  result<message> receive(std::chrono::milliseconds timeout);
  void receive_async(std::function<void(result<message>)> done);
  // Up to `max` messages: what is queued, then more until `timeout` passes or `max` are
  // there; a short or empty batch is a normal result.
  result<std::vector<message>> receive_multi(std::size_t max, std::chrono::milliseconds timeout);

  result<void> acknowledge(const message_id& id);
  result<void> acknowledge(const message& m) { return acknowledge(m.id()); }
  // The message comes again after the negative-ack redelivery delay.
  result<void> negative_acknowledge(const message_id& id);
  result<void> negative_acknowledge(const message& m) { return negative_acknowledge(m.id()); }

  // Closes every segment's consumer. Idempotent.
  result<void> close();

  const std::string& topic() const;
  const std::string& subscription() const;

 private:
  friend class client;
  explicit queue_consumer(std::shared_ptr<detail::st_queue_consumer> impl);
  std::shared_ptr<detail::st_queue_consumer> _impl;
};

}  // namespace magnetar::st
