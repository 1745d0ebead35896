// st::client: the entry point of the scalable-topic SDK (magnetar::st), upstream's
// Pulsar 5 "v5" client model: a scalable topic (topic://tenant/namespace/name) is a DAG
// of segments over the 16-bit key-hash ring, split and merged by the broker while
// producers and consumers keep going.
//
//   auto c = magnetar::st::client::create("pulsar://localhost:6650");
//   auto p = c->create_producer("topic://public/default/orders");
//   p->send(magnetar::message_builder().key("order-42").payload("...").build());
//   auto s = c->subscribe_stream("topic://public/default/orders", "billing");
//   auto m = s->receive();  ...  s->acknowledge_cumulative(*m);
//
// It runs on the classic client's machinery (io threads, connection pool, lookups) and
// takes the same client_config; the broker must support scalable topics (CONNECTED's
// feature flag), or creating anything fails with unsupported_version.
//
// Threading: every call is thread-safe; blocking calls must not be made from the
// client's io threads. close() (or destroying the last client handle) closes every
// producer and consumer it made.
#pragma once

#include "base/result.h"
#include "magnetar/config.h"
#include "magnetar/st/config.h"
#include "magnetar/st/message.h"
#include "magnetar/st/message_id.h"
#include "magnetar/st/producer.h"
#include "magnetar/st/queue_consumer.h"
#include "magnetar/st/stream_consumer.h"

#include <memory>
#include <string>

namespace magnetar::st {

namespace detail {
class st_client_state;
}

class client {
 public:
  // Errors: invalid_service_url, invalid_argument. Connects on first use.
  static result<client> create(const std::string& service_url, client_config config = {});

  client(client&&) noexcept;
  client& operator=(client&&) noexcept;
  ~client();

  // Watches the topic's layout (creating the topic if the broker allows), and routes
  // sends to its segments. Errors: the layout's (topic_not_found, unsupported_version,
  // lookup_error, invalid_topic_name, timeout...), invalid_argument, and in the
  // exclusive access modes the segment producers' (producer_busy, ...).
  result<producer> create_producer(const std::string& topic, producer_config config = {});
  // Errors: as create_producer, plus the segment consumers' (subscribe) errors,
  // invalid_argument (empty subscription).
  result<queue_consumer> subscribe_queue(const std::string& topic, const std::string& subscription,
                                         queue_consumer_config config = {});
  // Registers with the topic's controller and attaches the segments it assigns.
  // Errors: as subscribe_queue, consumer_busy (a segment stayed held by another
  // consumer), not_supported (the controller shares segments by entry buckets).
  result<stream_consumer> subscribe_stream(const std::string& topic, const std::string& subscription,
                                           stream_consumer_config config = {});

  // Closes producers, consumers and connections. Idempotent.
  result<void> close();

 private:
  explicit client(std::shared_ptr<detail::st_client_state> state) : _state(std::move(state)) {}
  std::shared_ptr<detail::st_client_state> _state;
};

}  // namespace magnetar::st
