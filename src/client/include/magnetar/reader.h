// reader: reads a topic from a chosen position without a durable subscription.
//
// Made by client::create_reader. It is a consumer on a non-durable subscription that
// starts at reader_config::start (earliest, latest or a message id, optionally
// inclusive); after a reconnect it goes on after the last message read, so nothing is
// read twice or skipped.
//
// Threading: a handle; every call is thread-safe. Blocking calls on a client io thread
// fail with invalid_argument.
#pragma once

#include "base/result.h"
#include "magnetar/consumer.h"
#include "magnetar/message.h"

#include <chrono>
#include <string>

namespace magnetar {

class reader {
 public:
  reader();

  // The next message, waiting as long as needed, or within `timeout`
  // (client_errc::timeout). Errors: already_closed.
  result<message> read_next();
  result<message> read_next(std::chrono::milliseconds timeout);
  // Whether a message after the last one read is stored (asks the broker unless one is
  // queued already). Errors: already_closed, timeout, not_connected.
  result<bool> has_message_available();
  // Moves the reader (see consumer::seek).
  result<void> seek(const message_id& id);
  result<void> seek(std::uint64_t publish_time_ms);
  result<void> close();

  const std::string& topic() const;
  bool is_connected() const;

 private:
  friend class client;
  explicit reader(consumer c) : _consumer(std::move(c)) {}
  consumer _consumer;
};

}  // namespace magnetar
