// client: the entry point of the SDK. It connects to a Pulsar (or magnetar) cluster
// through its service URL and makes producers, consumers and readers.
//
//   auto c = magnetar::client::create("pulsar://localhost:6650");
//   auto p = c->create_producer("my-topic");
//   p->send(magnetar::message_builder().payload("hello").build());
//
// A client owns its io threads (client_config::io_threads) and a pool of connections,
// one per broker by default, shared by its producers and consumers. Topics are found
// with the binary protocol's lookup (redirects followed). On a partitioned topic a
// producer, consumer or reader spans every partition ("<topic>-partition-<i>") behind
// one handle; a consumer may also span a list of topics or a namespace's topics that
// match a pattern.
//
// Threading: every call is thread-safe. Blocking calls must not be made from the
// client's io threads (the callbacks of producers and consumers run there); they fail
// with invalid_argument if they are. close() (or destroying the last handle) closes
// every producer and consumer made by this client.
#pragma once

#include "base/result.h"
#include "magnetar/config.h"
#include "magnetar/consumer.h"
#include "magnetar/errc.h"
#include "magnetar/message.h"
#include "magnetar/message_id.h"
#include "magnetar/producer.h"
#include "magnetar/reader.h"

#include <functional>
#include <memory>
#include <string>
#include <vector>

namespace magnetar {

namespace client_detail {
class client_impl;
struct client_access;
}  // namespace client_detail

class client {
 public:
  // Errors: invalid_service_url, invalid_argument (a config value out of range). No
  // connection is made until the first call that needs one.
  static result<client> create(const std::string& service_url, client_config config = {});

  client(client&&) noexcept;
  client& operator=(client&&) noexcept;
  ~client();

  // Looks the topic up, connects and registers a producer; on a partitioned topic, one
  // per partition (producer_config::routing_mode picks each message's partition).
  // Errors: invalid_topic_name, not_supported (a compression codec not implemented),
  // invalid_argument (routing_mode custom without a message_router),
  // producer_busy, producer_fenced, topic_not_found, not_allowed, lookup_error,
  // connect_error, timeout, already_closed.
  result<producer> create_producer(const std::string& topic, producer_config config = {});
  void create_producer_async(const std::string& topic, producer_config config,
                             std::function<void(result<producer>)> done);

  // Subscribes. Errors: as create_producer, plus consumer_busy, subscription_not_found,
  // invalid_argument (empty subscription name).
  result<consumer> subscribe(const std::string& topic, const std::string& subscription, consumer_config config = {});
  // Subscribes to every topic of the list (a partitioned one as all its partitions), with
  // one receive queue for all; see consumer.h. If one topic fails, none is subscribed.
  // Pass a std::vector explicitly: a braced list of two strings is ambiguous with the
  // overload above. Errors: as subscribe, invalid_argument (an empty list).
  result<consumer> subscribe(const std::vector<std::string>& topics, const std::string& subscription,
                             consumer_config config = {});
  // Subscribes to the persistent topics of one namespace whose names match `pattern`, an
  // ECMAScript regex over the whole name ("persistent://public/default/orders-.*"; the
  // domain is ignored), and to new ones the namespace lists every
  // consumer_config::pattern_auto_discovery_period. No topic matching yet is fine.
  // Errors: as subscribe, invalid_argument (a bad regex), invalid_topic_name (no plain
  // tenant/namespace in the pattern).
  result<consumer> subscribe_with_regex(const std::string& pattern, const std::string& subscription,
                                        consumer_config config = {});
  void subscribe_async(const std::string& topic, const std::string& subscription, consumer_config config,
                       std::function<void(result<consumer>)> done);

  // On a partitioned topic the reader reads every partition, each from `start` (as
  // upstream's C++ client). Errors: as subscribe.
  result<reader> create_reader(const std::string& topic, reader_config config = {});

  // The topic's partitions: the topic itself when it is not partitioned, else
  // "<topic>-partition-<i>" for each. Errors: lookup errors, timeout.
  result<std::vector<std::string>> get_partitions_for_topic(const std::string& topic);

  // Closes producers, consumers and connections. Idempotent.
  result<void> close();

 private:
  friend struct client_detail::client_access;  // magnetar's broker (client/entry_producer.h)
  explicit client(std::shared_ptr<client_detail::client_impl> impl) : _impl(std::move(impl)) {}
  std::shared_ptr<client_detail::client_impl> _impl;
};

}  // namespace magnetar
