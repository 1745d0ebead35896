// listener_driver: hands a consumer's messages to its message listener
// (consumer_config::message_listener), in order, on one of the client's listener
// threads (client_config::message_listener_threads), as upstream's clients do.
//
// It takes what is queued in turns of a few hundred messages, then lets the other
// consumers on its thread have theirs; with nothing queued it waits with receive_async
// and goes on from the message that brings. Messages leave the receive queue as they
// are handed over, so flow permits go back to the broker as usual. It holds the consumer
// weakly: the application's handles keep it, as without a listener. It ends when the
// consumer closes (no message is handed over once it is closing) or goes, or at the end
// of a terminated topic. Many consumers on one listener thread cost one wake-up when
// they all idle, not a blocked thread each.
#pragma once

#include "client/consumer_base.h"
#include "io/shard.h"
#include "magnetar/consumer.h"

#include <functional>
#include <memory>

namespace magnetar::client_detail {

// Makes application handles to consumers (the constructor is private).
struct consumer_access {
  static consumer make(std::shared_ptr<consumer_base> impl, bool has_listener) {
    return consumer(std::move(impl), has_listener);
  }
};

class listener_driver : public std::enable_shared_from_this<listener_driver> {
 public:
  using listener = std::function<void(consumer&, const message&)>;

  // Starts handing `c`'s messages to `fn` on `thread`, a listener thread of the client
  // that `c` belongs to (the client outlives its consumers, and so the thread).
  static void start(const std::shared_ptr<consumer_base>& c, listener fn, io::shard& thread);

 private:
  listener_driver(const std::shared_ptr<consumer_base>& c, listener fn, io::shard& thread);
  void take_turn();
  void wait_for_next(consumer_base& c);
  // False when the consumer is closing: the message is not handed over.
  bool deliver(const consumer_base& c, consumer& handle, const message& m);

  std::weak_ptr<consumer_base> _consumer;
  listener _listener;
  io::shard& _thread;
};

}  // namespace magnetar::client_detail
