// segment_feed: one segment's classic consumer and the loop that moves its messages into
// a scalable-topic consumer's shared receive queue.
//
// The loop asks the segment's consumer for one message at a time (receive_async) and
// offers it to the queue; when the queue is full it keeps that message aside and waits
// for room before asking again, so the segment's flow permits hold the broker back. The
// `stamp` runs under the queue's lock as the message enters it (a stream consumer takes
// the position vector there). When the consumer's receive fails the loop stops and
// `ended` is called once: topic_terminated means the segment is sealed and this
// subscription has read it all (REACHED_END_OF_TOPIC), anything else that the consumer
// closed or failed for good. stop() ends the loop without calling `ended`; a message
// kept aside is dropped (the broker delivers it again, as it was never acknowledged).
//
// Thread-safe; callbacks run on io threads without the feed's lock held.
#pragma once

#include "client/consumer_impl.h"
#include "client/st/receive_queue.h"
#include "magnetar/st/message.h"
#include "magnetar/st/message_id.h"

#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>

namespace magnetar::st::detail {

// A message on its way through the shared queue; becomes an st::message when received.
struct delivery {
  magnetar::message m;
  std::uint64_t segment = 0;
  // Stream consumers: the position vector, stamped as it enters the queue.
  std::shared_ptr<const position_vector> positions;
};

using delivery_queue = receive_queue<delivery>;

// The message the application gets: its id names the segment (and carries the vector);
// `topic` is the scalable topic.
inline message to_message(delivery d, const std::shared_ptr<const std::string>& topic) {
  message_id id(static_cast<std::int64_t>(d.segment), d.m.id(), std::move(d.positions));
  if (topic) id.set_topic_name(*topic);
  return message(std::move(d.m), std::move(id), topic);
}

class segment_feed : public std::enable_shared_from_this<segment_feed> {
 public:
  using stamp_fn = std::function<void(delivery&)>;
  using ended_fn = std::function<void(std::uint64_t segment, const error& why)>;

  segment_feed(std::uint64_t segment, std::shared_ptr<client_detail::consumer_impl> consumer,
               std::shared_ptr<delivery_queue> queue, stamp_fn stamp, ended_fn ended);

  void start();
  void stop();

  std::uint64_t segment() const { return _segment; }
  const std::shared_ptr<client_detail::consumer_impl>& consumer() const { return _consumer; }

 private:
  void pump();
  void on_message(result<magnetar::message> r);
  // Offers `d`; true when it went in, false when it waits for room or the queue is closed.
  bool offer(delivery& d);
  void on_room(bool open);

  const std::uint64_t _segment;
  const std::shared_ptr<client_detail::consumer_impl> _consumer;
  const std::shared_ptr<delivery_queue> _queue;
  const stamp_fn _stamp;
  const ended_fn _ended;

  std::mutex _mutex;
  bool _stopped = false;
  bool _pumping = false;           // a pump loop runs
  bool _waiting = false;           // a receive_async is outstanding
  std::optional<delivery> _aside;  // taken from the consumer, waiting for room
};

}  // namespace magnetar::st::detail
