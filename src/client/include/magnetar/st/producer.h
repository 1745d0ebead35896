// st::producer: publishes to a scalable topic.
//
// Made by st::client::create_producer. Each message goes to one active segment: a keyed
// one to the segment whose hash range covers its key's hash (the same segment upstream's
// producer picks), a keyless one round robin. Each segment has a classic producer of
// its own, made on the segment's first message (or at once in the exclusive access
// modes). The producer follows the layout the broker pushes: when a split or merge seals
// a segment, sends the broker refused there (topic_terminated) are sent again on the
// newest layout, up to 10 times (100, 200, ... 500 ms apart), and sends made meanwhile
// wait for them, so a key's messages keep their order across splits and merges. The id
// a send completes with names the segment.
//
// Threading: a handle (copies share one producer); every call is thread-safe. Callbacks
// run on the client's io threads: keep them short, make no blocking calls there.
#pragma once

#include "base/result.h"
#include "magnetar/message.h"
#include "magnetar/st/message_id.h"

#include <cstdint>
#include <functional>
#include <future>
#include <memory>
#include <string>

namespace magnetar::st {

namespace detail {
class st_producer;
}

using send_callback = std::function<void(result<message_id>)>;

class producer {
 public:
  // A handle to no producer; every call fails with already_closed.
  producer();
  ~producer();
  producer(const producer&);
  producer& operator=(const producer&);
  producer(producer&&) noexcept;
  producer& operator=(producer&&) noexcept;

  // Errors: already_closed, producer_queue_is_full (block_if_queue_full off, or full on
  // an io thread), timeout, topic_terminated (still refused after 10 attempts),
  // service_not_ready (no active segment), protocol_error (no active segment covers
  // the key's hash), and the segment producer's errors.
  void send_async(magnetar::message m, send_callback done);
  result<message_id> send(magnetar::message m);
  std::future<result<message_id>> send_future(magnetar::message m);

  // Waits until every message sent before is stored or failed. Errors: the first
  // failure among them, already_closed.
  result<void> flush();
  void flush_async(std::function<void(result<void>)> done);

  // Closes the layout watch and every segment producer (they flush first). Idempotent.
  result<void> close();

  // The scalable topic (topic://t/n/x).
  const std::string& topic() const;
  const std::string& producer_name() const;
  // The highest sequence id stored over all segments, -1 before any.
  std::int64_t last_sequence_id() const;

 private:
  friend class client;
  explicit producer(std::shared_ptr<detail::st_producer> impl);
  std::shared_ptr<detail::st_producer> _impl;
};

}  // namespace magnetar::st
