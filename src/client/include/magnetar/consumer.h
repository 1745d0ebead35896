// consumer: receives the messages of one topic through a subscription, or of several:
// a partitioned topic's partitions, a list of topics, or a pattern's topics.
//
// Made by client::subscribe. The broker pushes up to receiver_queue_size messages ahead
// (flow permits, renewed by half the queue once half is consumed); receive() takes them
// in order. Batched entries are split into their messages. Acks are grouped for
// ack_group_time and sent together; a batched entry is acked once all its messages are.
// When the connection drops, or the broker closes the consumer (after a seek, or when
// the topic moves), it subscribes again with backoff; messages received but not yet
// taken are dropped then, and the broker redelivers them.
//
// Over several topics there is one queue (receiver_queue_size) fed by one consumer per
// topic or partition; message::topic_name() and message_id::topic_name() say where each
// message came from. Acks, cumulative acks (within that topic) and seeks to a message
// id go to that topic; seeks to a time, earliest or latest, redelivery, unsubscribe and
// close go to all. get_last_message_id fails with not_supported there, as upstream.
//
// Threading: a consumer is a handle (copies share one consumer); every call is
// thread-safe. Callbacks (receive_async, the active-consumer listener) run on one of the
// client's io threads: keep them short and make no blocking calls from them. Blocking
// calls on an io thread fail with invalid_argument. Dropping the last handle closes the
// consumer.
#pragma once

#include "base/result.h"
#include "magnetar/config.h"
#include "magnetar/message.h"
#include "magnetar/message_id.h"

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

namespace magnetar {

namespace client_detail {
class consumer_base;
struct consumer_access;
}  // namespace client_detail

struct batch_receive_policy {
  std::size_t max_messages = 100;
  std::size_t max_bytes = 10 * 1024 * 1024;
  std::chrono::milliseconds timeout = std::chrono::milliseconds(100);
};

class consumer {
 public:
  // A handle to no consumer; every call fails with already_closed.
  consumer();
  ~consumer();
  consumer(const consumer&);
  consumer& operator=(const consumer&);
  consumer(consumer&&) noexcept;
  consumer& operator=(consumer&&) noexcept;

  // The next message; waits for one as long as needed. Errors: already_closed (closed
  // meanwhile, or before), invalid_argument (called on an io thread, or on a consumer
  // with a message_listener, as every receive call).
  result<message> receive();
  // The same within `timeout`; client_errc::timeout when none came.
  result<message> receive(std::chrono::milliseconds timeout);
  // Calls `done` with the next message (at once when one is queued).
  void receive_async(std::function<void(result<message>)> done);
  // Waits until max_messages or max_bytes are queued or the timeout passes, then takes
  // what there is (possibly nothing).
  result<std::vector<message>> batch_receive(const batch_receive_policy& policy = {});

  // Acknowledges one message. Errors: already_closed.
  result<void> acknowledge(const message_id& id);
  result<void> acknowledge(const message& m) { return acknowledge(m.id()); }
  // Acknowledges every message up to and including `id`. Errors: already_closed,
  // not_supported on Shared and Key_Shared subscriptions.
  result<void> acknowledge_cumulative(const message_id& id);
  result<void> acknowledge_cumulative(const message& m) { return acknowledge_cumulative(m.id()); }
  // Asks the broker to send every unacknowledged message again.
  result<void> redeliver_unacknowledged();

  // Negative acknowledgement: the message (its whole entry, for a batch) is redelivered
  // negative_ack_redelivery_delay from now; nacks due together go in one request. On
  // Exclusive and Failover subscriptions the broker then sends every unacknowledged
  // message again (as upstream), so what is queued is dropped. Errors: already_closed.
  result<void> negative_acknowledge(const message_id& id);
  result<void> negative_acknowledge(const message& m) { return negative_acknowledge(m.id()); }
  // Retry later (consumer_config::retry_enable): publishes a copy of `m` to the retry
  // letter topic, to be delivered `delay` from now (RECONSUMETIMES counts the retries;
  // past dead_letter_policy.max_redeliver_count it goes to the dead letter topic
  // instead), then acknowledges `m`. A consumer subscribed to one topic with
  // retry_enable reads the retry topic too (see consumer_config::retry_enable), so `m`
  // comes back to it; the broker holds it until then on Shared and Key_Shared
  // subscriptions only (Exclusive and Failover deliver it at once, as upstream). Errors:
  // invalid_argument (retry_enable off, a negative delay, or called on an io thread),
  // already_closed, and the retry topic producer's errors (then `m` stays unacked).
  result<void> reconsume_later(const message& m, std::chrono::milliseconds delay);
  void reconsume_later_async(const message& m, std::chrono::milliseconds delay, std::function<void(result<void>)> done);

  // Moves the subscription so that the next message is `id` (or the first published at
  // or after `publish_time_ms`); messages already queued are dropped. While the consumer
  // is reconnecting this (like get_last_message_id) waits for it, up to the operation
  // timeout. Errors: already_closed, not_connected (still reconnecting at the timeout),
  // the broker's error, timeout.
  result<void> seek(const message_id& id);
  result<void> seek(std::uint64_t publish_time_ms);
  // The id of the last message stored on the topic (earliest() when empty).
  result<message_id> get_last_message_id();

  // Deletes the subscription and closes the consumer. Errors: the broker's (e.g. other
  // consumers are attached), already_closed, timeout.
  result<void> unsubscribe();
  // Sends the acks waiting in the group and closes. Idempotent.
  result<void> close();

  const std::string& topic() const;
  const std::string& subscription() const;
  std::string consumer_name() const;
  // Failover and Exclusive: whether the broker says this consumer is the one receiving.
  bool is_active() const;
  bool is_connected() const;
  // The topic is terminated and this subscription has received and acknowledged every
  // message (the broker said REACHED_END_OF_TOPIC; for a consumer of several topics,
  // every one of them). Once what is queued is taken, receives fail with
  // topic_terminated instead of waiting.
  bool has_reached_end_of_topic() const;

 private:
  friend class client;
  friend class reader;
  friend struct client_detail::consumer_access;
  explicit consumer(std::shared_ptr<client_detail::consumer_base> impl, bool has_listener = false);
  std::shared_ptr<client_detail::consumer_base> _impl;
  bool _has_listener = false;  // consumer_config::message_listener: no receive calls
};

}  // namespace magnetar
