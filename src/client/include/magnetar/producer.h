// producer: publishes messages to one topic.
//
// Made by client::create_producer. Messages are batched (producer_config) and sent in
// order; each send completes with the message's id once the broker has stored it, or
// with an error. When the connection drops, or the broker closes the producer, it
// reconnects with backoff (same name, epoch + 1) and sends again every message not yet
// receipted, in order; sends meanwhile wait in the pending queue.
//
// On a partitioned topic there is one producer per partition behind this handle;
// producer_config::routing_mode and hashing pick each message's partition, and the ids
// sends complete with carry it. topic() is the partitioned topic; flush and close span
// every partition.
//
// Threading: a producer is a handle (copies share one producer) and every call is
// thread-safe. Callbacks run on one of the client's io threads: keep them short and
// never make blocking calls (send, flush, close) from them. Dropping the last handle
// closes the producer without waiting; pending sends then fail with already_closed.
#pragma once

#include "base/result.h"
#include "magnetar/config.h"
#include "magnetar/message.h"
#include "magnetar/message_id.h"

#include <cstdint>
#include <functional>
#include <future>
#include <memory>
#include <string>

namespace magnetar {

namespace client_detail {
class producer_base;
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

  // Queues `m` and calls `done` with its id once stored. Errors: already_closed,
  // producer_queue_is_full (block_if_queue_full off), message_too_big, timeout (not
  // receipted within send_timeout), producer_fenced, topic_terminated, checksum_error,
  // and the broker's send errors. With block_if_queue_full, waits for room (never call
  // it so from a callback).
  void send_async(message m, send_callback done);
  // The same, waiting for the receipt.
  result<message_id> send(message m);
  std::future<result<message_id>> send_future(message m);

  // Sends what is batched now and waits until every message sent before is receipted
  // or failed. Errors: the first failure among them, already_closed.
  result<void> flush();
  void flush_async(std::function<void(result<void>)> done);

  // Flushes (waiting for receipts, up to send_timeout each), then tells the broker the
  // producer is gone. Later sends fail with already_closed. Idempotent.
  result<void> close();
  void close_async(std::function<void(result<void>)> done);

  const std::string& topic() const;
  // The name the broker knows this producer by (given, or made up by the broker).
  std::string producer_name() const;
  // The id of the last message receipted, -1 before any.
  std::int64_t last_sequence_id() const;
  // True while a connection carries the producer (false while reconnecting).
  bool is_connected() const;

 private:
  friend class client;
  explicit producer(std::shared_ptr<client_detail::producer_base> impl);
  std::shared_ptr<client_detail::producer_base> _impl;
};

}  // namespace magnetar
