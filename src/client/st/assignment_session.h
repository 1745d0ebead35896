// assignment_session: a stream consumer's registration with its topic's controller,
// which assigns it whole segments.
//
// One registration: a one-shot layout watch finds the controller (the DAG names its
// url; without one, or when it can't be reached, the classic lookup's broker is asked
// and must forward), the
// connection must support scalable topics, then SCALABLE_TOPIC_SUBSCRIBE{topic,
// subscription, consumer_name (the registration key, stable across reconnects),
// consumer_id (tags the pushes), STREAM}. The response carries the first assignment;
// later ones come as SCALABLE_TOPIC_ASSIGNMENT_UPDATE pushes. Every assignment goes
// through the epoch gate (assignment.h), whose listener the consumer sets.
//
// start() fails fast: the watch's errors, unsupported_version, topic_not_found,
// consumer_busy, the broker's other errors, protocol_error (a response without
// assignment), connection_closed. After the first assignment, a dropped connection
// makes it register again with backoff (initial_backoff doubling to max_backoff, reset
// on success), with a fresh layout lookup since the controller may have moved; within
// the broker's grace period it gets the same assignment back. close() only forgets the
// registration locally: there is no unregister command, the broker reaps it after its
// grace period.
//
// Threading: state under `_mutex`; the gate's listener runs without it.
#pragma once

#include "client/backoff.h"
#include "client/client_impl.h"
#include "client/connection.h"
#include "client/st/assignment.h"

#include <cstdint>
#include <memory>
#include <mutex>
#include <string>

namespace magnetar::st::detail {

// "v5-stream-" and 8 random lower-case hex digits (upstream's default).
std::string random_stream_consumer_name();

class assignment_session final : public client_detail::assignment_listener,
                                 public std::enable_shared_from_this<assignment_session> {
 public:
  assignment_session(std::shared_ptr<client_detail::client_impl> client, std::string topic, std::string subscription,
                     std::string consumer_name);
  ~assignment_session() override;

  assignment_gate& gate() { return _gate; }
  awaitable<result<void>> start();
  void close();

  const std::string& consumer_name() const { return _consumer_name; }
  std::uint64_t consumer_id() const { return _consumer_id; }

  // assignment_listener
  void on_assignment_update(const std::shared_ptr<client_detail::connection>& c,
                            const proto::CommandScalableTopicAssignmentUpdate& update) override;
  void on_connection_closed(const std::shared_ptr<client_detail::connection>& c) override;

 private:
  // One registration attempt; the first assignment.
  awaitable<result<assignment>> register_once();
  awaitable<result<std::shared_ptr<client_detail::connection>>> controller_connection();
  void schedule_reconnect_locked();
  awaitable<void> reconnect();

  const std::shared_ptr<client_detail::client_impl> _client;
  const std::string _topic;
  const std::string _subscription;
  const std::string _consumer_name;
  const std::uint64_t _consumer_id;
  io::shard& _home;
  assignment_gate _gate;

  std::mutex _mutex;
  bool _closed = false;
  bool _registered = false;
  std::shared_ptr<client_detail::connection> _connection;
  client_detail::backoff _backoff;
  asio::steady_timer _reconnect_timer;
  bool _reconnect_scheduled = false;
};

}  // namespace magnetar::st::detail
