// st::stream_consumer: ordered consumption of a scalable topic with cumulative acks.
//
// Made by st::client::subscribe_stream. The consumer registers with the topic's
// controller, which assigns it whole segments (spreading them over the subscription's
// stream consumers, and moving them when consumers come and go); it attaches an
// Exclusive consumer to each assigned segment and fans their messages into one receive
// queue. Within a segment messages come in order; across a split or merge, the
// controller assigns a child segment only once its parents are drained for this
// subscription, so a key's older messages always come before its newer ones.
//
// Acknowledge as you go: acknowledge_cumulative(m) acknowledges, on every segment this
// consumer reads, everything delivered up to the moment m was (its id's position
// vector), in one call. The controller holds a split's or merge's children back until
// the parents are acknowledged to their end, so a consumer that stops acknowledging
// stops receiving the topic's newer segments. A message delivered into the queue but
// not yet received is covered by a later message's cumulative ack too. There is no
// negative acknowledgement: a stream is consumed in order.
//
// A segment the controller moves elsewhere is closed here at once (messages not yet
// acknowledged go to its new owner, so acks of them from here are no-ops); a sealed
// segment read to its end is closed. A segment just assigned may still be held by its
// previous owner: attaching is retried (up to 10 times, 100-500 ms apart).
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
#include <string>
#include <vector>

namespace magnetar::st {

namespace detail {
class st_stream_consumer;
}

class stream_consumer {
 public:
  stream_consumer();
  ~stream_consumer();
  stream_consumer(const stream_consumer&);
  stream_consumer& operator=(const stream_consumer&);
  stream_consumer(stream_consumer&&) noexcept;
  stream_consumer& operator=(stream_consumer&&) noexcept;

  // Errors: already_closed, timeout (with a timeout), invalid_argument (io thread).
  result<message> receive();
  result<message> receive(std::chrono::milliseconds timeout);
  void receive_async(std::function<void(result<message>)> done);
  // Up to `max` messages: what is queued, then more until `timeout` passes or `max` are
  // there; a short or empty batch is a normal result.
  result<std::vector<message>> receive_multi(std::size_t max, std::chrono::milliseconds timeout);

  // See above. Errors: already_closed, invalid_argument (an empty id).
  result<void> acknowledge_cumulative(const message_id& id);
  result<void> acknowledge_cumulative(const message& m) { return acknowledge_cumulative(m.id()); }

  // Closes the segment consumers and forgets the registration (the broker reaps it
  // after its grace period). Idempotent.
  result<void> close();

  const std::string& topic() const;
  const std::string& subscription() const;
  // The controller's key for this consumer.
  const std::string& consumer_name() const;

 private:
  friend class client;
  explicit stream_consumer(std::shared_ptr<detail::st_stream_consumer> impl);
  std::shared_ptr<detail::st_stream_consumer> _impl;
};

}  // namespace magnetar::st
