// dag_watch: a DAG watch session: keeps a scalable topic's current segment layout, as
// the broker pushes it (SCALABLE_TOPIC_UPDATE, a full snapshot each time).
//
// start() finds a broker with the classic lookup (any broker serves the session; a
// topic:// is looked up as its persistent:// twin), checks that it supports scalable
// topics, registers the session on the connection and sends SCALABLE_TOPIC_LOOKUP; it
// completes with the first layout. Errors before it: the lookup's and connection's,
// unsupported_version (the broker has no scalable topics), topic_not_found,
// lookup_error (any other error the broker answers), protocol_error / invalid_topic_name
// (a first layout this client can't use), connect_error (the connection closed before
// the first layout), timeout (no layout within the operation timeout), already_closed.
//
// After the first layout: every later snapshot replaces the layout (a malformed one is
// dropped, the last good one kept) and goes to the listener with the previous one; an
// error the broker pushes is only logged. When the connection drops, the session
// reconnects with backoff (the client's initial_backoff, doubling, up to max_backoff;
// reset by each layout), repeating the lookup with the same session id, for as long as
// it is open. close() (idempotent) drops the session and tells the broker
// (SCALABLE_TOPIC_CLOSE) without waiting. DAG updates are not epoch-checked: one
// connection delivers them in order.
//
// Threading: state under `_mutex`; the listener is called without it, one call at a
// time, in the order the layouts were taken.
#pragma once

#include "client/backoff.h"
#include "client/client_impl.h"
#include "client/connection.h"
#include "client/st/segment_layout.h"

#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <string>

namespace magnetar::st::detail {

using layout_ptr = std::shared_ptr<const segment_layout>;

class dag_watch final : public client_detail::dag_watch_listener, public std::enable_shared_from_this<dag_watch> {
 public:
  // (now, before): before is an empty layout for the first one.
  using listener = std::function<void(const layout_ptr& now, const layout_ptr& before)>;

  dag_watch(std::shared_ptr<client_detail::client_impl> client, std::string topic, bool create_if_missing);
  ~dag_watch() override;

  // Before start().
  void set_listener(listener l);
  awaitable<result<layout_ptr>> start();
  void close();

  // The current layout; nullptr before the first.
  layout_ptr layout() const;
  std::uint64_t session_id() const { return _session_id; }
  // The broker's canonical name (topic://t/n/x) once known, else the topic as given.
  std::string topic_name() const;

  // dag_watch_listener
  void on_scalable_topic_update(const std::shared_ptr<client_detail::connection>& c,
                                const proto::CommandScalableTopicUpdate& update) override;
  void on_connection_closed(const std::shared_ptr<client_detail::connection>& c) override;

 private:
  using start_callback = std::function<void(result<layout_ptr>)>;

  // Finds a broker, registers and sends the lookup.
  awaitable<result<void>> attach();
  awaitable<void> reconnect();
  void schedule_reconnect_locked();
  // Fails start() with `e` (if it waits) and closes the session.
  void fail_start(const error& e);
  void deliver(const layout_ptr& now, const layout_ptr& before);

  const std::shared_ptr<client_detail::client_impl> _client;
  const std::string _topic;
  const bool _create_if_missing;
  const std::uint64_t _session_id;
  io::shard& _home;

  mutable std::mutex _mutex;
  bool _closed = false;
  std::shared_ptr<client_detail::connection> _connection;
  layout_ptr _layout;
  std::string _resolved;
  start_callback _first;
  listener _listener;
  client_detail::backoff _backoff;
  asio::steady_timer _reconnect_timer;
  bool _reconnect_scheduled = false;
  asio::steady_timer _start_timer;
  // Serialises listener calls.
  std::mutex _deliver_mutex;
};

}  // namespace magnetar::st::detail
