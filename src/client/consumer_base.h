// consumer_base: what the public consumer (and reader) handle calls, implemented by
// consumer_impl (one topic or partition) and multi_topic_consumer (several topics, a
// partitioned topic's partitions, or a pattern's topics).
//
// Blocking calls (receive, batch_receive) block the caller; awaitables run on an io
// thread (the handle blocks on them with client_impl::block_on). Implementations are
// thread-safe.
#pragma once

#include "base/result.h"
#include "io/asio.h"
#include "magnetar/consumer.h"
#include "magnetar/errc.h"

#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace magnetar::client_detail {

class client_impl;

class consumer_base {
 public:
  virtual ~consumer_base() = default;

  virtual result<message> receive(std::optional<std::chrono::milliseconds> timeout) = 0;
  virtual void receive_async(std::function<void(result<message>)> done) = 0;
  virtual result<std::vector<message>> batch_receive(const batch_receive_policy& policy) = 0;

  virtual result<void> acknowledge(const message_id& id) = 0;
  virtual result<void> acknowledge_cumulative(const message_id& id) = 0;
  virtual result<void> negative_acknowledge(const message_id& id) = 0;
  // Publishes `m` to the retry letter topic to come back after `delay`, then acks it.
  virtual void reconsume_later(const message& m, std::chrono::milliseconds delay,
                               std::function<void(result<void>)> done) = 0;
  virtual result<void> redeliver_unacknowledged() = 0;

  virtual awaitable<result<void>> seek(std::optional<message_id> id, std::optional<std::uint64_t> publish_time_ms) = 0;
  virtual awaitable<result<message_id>> get_last_message_id() = 0;
  // Readers: whether a message after the last one taken (or the start) is stored.
  virtual awaitable<result<bool>> has_message_available() = 0;
  virtual awaitable<result<void>> unsubscribe() = 0;
  virtual awaitable<result<void>> close() = 0;
  // The client is closing: close without waiting for the broker.
  virtual void shutdown() = 0;

  virtual const std::string& topic() const = 0;
  virtual const std::string& subscription() const = 0;
  virtual std::string consumer_name() const = 0;
  virtual bool is_active() const = 0;
  virtual bool is_connected() const = 0;
  // Closing or closed (or failed for good): no more messages for the application.
  virtual bool is_closed() const = 0;
  virtual bool has_reached_end_of_topic() const = 0;
  virtual const std::shared_ptr<client_impl>& client() const = 0;
};

}  // namespace magnetar::client_detail
