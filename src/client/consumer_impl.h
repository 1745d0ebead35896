// consumer_impl: the state and protocol of one consumer or reader (see
// magnetar/consumer.h and magnetar/reader.h for the behaviour users see).
//
// Incoming entries are checked (crc32c), decompressed, split into messages and queued;
// the app takes them with receive, which returns flow permits to the broker in chunks of
// half the receiver queue. A reader (non-durable subscription) filters out messages
// before its start position, because the broker delivers whole entries, and after a
// reconnect starts again after the last message the app took.
//
// Redelivery on the client's initiative (negative acks, the ack timeout) asks a Shared or
// Key_Shared subscription for the listed entries only, and a single-active one
// (Exclusive, Failover) for everything unacknowledged, as upstream does: those brokers
// redeliver everything anyway, so the queue is dropped. Messages that were redelivered
// more than the dead letter policy allows go to the dead letter topic instead of the
// app (consumer_redelivery.cc).
//
// Threading: all state is under `_mutex`; public calls come from any thread, listener
// calls from the connection's shard, timers and the reconnect coroutine on the home
// shard. Callbacks to the app run after the lock is released, on io threads.
#pragma once

#include "client/ack_tracker.h"
#include "client/backoff.h"
#include "client/client_impl.h"
#include "client/connection.h"
#include "client/consumer_base.h"
#include "client/dead_letter.h"
#include "client/negative_ack_tracker.h"
#include "client/receive_waits.h"
#include "client/unacked_tracker.h"
#include "magnetar/consumer.h"

#include <chrono>
#include <condition_variable>
#include <deque>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <set>
#include <string>
#include <vector>

namespace magnetar::client_detail {

struct consumer_options {
  std::string topic;
  std::string subscription;
  consumer_config config;
  bool durable = true;
  // Readers: where to start, and whether that message itself is read.
  message_id start = message_id::earliest();
  bool start_inclusive = false;
};

// Its public calls implement consumer_base (same names and signatures).
class consumer_impl final : public consumer_base,
                            public consumer_listener,
                            public std::enable_shared_from_this<consumer_impl> {
 public:
  consumer_impl(std::shared_ptr<client_impl> client, consumer_options options);
  ~consumer_impl() override;

  awaitable<result<void>> start();

  result<message> receive(std::optional<std::chrono::milliseconds> timeout);
  void receive_async(std::function<void(result<message>)> done);
  result<std::vector<message>> batch_receive(const batch_receive_policy& policy);
  // True when a message is queued.
  bool has_queued() const;

  result<void> acknowledge(const message_id& id);
  result<void> acknowledge_cumulative(const message_id& id);
  result<void> redeliver_unacknowledged();
  result<void> negative_acknowledge(const message_id& id);
  // Publishes `m` to the retry letter topic (or, past max_redeliver_count retries, to
  // the dead letter topic), then acks it; `done` runs on an io thread.
  void reconsume_later(const message& m, std::chrono::milliseconds delay, std::function<void(result<void>)> done);

  awaitable<result<void>> seek(std::optional<message_id> id, std::optional<std::uint64_t> publish_time_ms);
  awaitable<result<message_id>> get_last_message_id();
  // Whether a message after the last one taken (or the start) is stored.
  awaitable<result<bool>> has_message_available();
  awaitable<result<void>> unsubscribe();
  awaitable<result<void>> close();
  void shutdown();

  const std::string& topic() const { return _options.topic; }
  const std::string& subscription() const { return _options.subscription; }
  std::string consumer_name() const;
  bool is_active() const;
  bool is_connected() const;
  bool is_closed() const override;
  bool has_reached_end_of_topic() const;
  const std::shared_ptr<client_impl>& client() const { return _client; }

  // consumer_listener
  void on_message(const std::shared_ptr<connection>& c, const proto::CommandMessage& command,
                  wire::frame& frame) override;
  void on_active_consumer_change(bool active) override;
  void on_reached_end_of_topic() override;
  void on_broker_close(const std::shared_ptr<connection>& c) override;
  void on_connection_closed(const std::shared_ptr<connection>& c) override;

 private:
  enum class state { starting, ready, connecting, closing, closed, failed };
  using actions = std::vector<std::function<void()>>;

  awaitable<result<void>> connect_once();
  void connection_lost(const std::shared_ptr<connection>& c, std::string_view why);
  // `topic_moving`: the last attempt failed with service_not_ready (see backoff.h).
  void schedule_reconnect_locked(bool topic_moving = false);
  awaitable<void> reconnect();
  // A request on the current connection; not_connected while reconnecting.
  awaitable<result<proto::BaseCommand>> request(const std::function<proto::BaseCommand(std::uint64_t)>& make);

  // Whether a reader skips `id` (before its start, or before a time it sought to).
  bool filtered_locked(const message_id& id, std::uint64_t publish_time) const;
  void enqueue_locked(message m, actions& out);
  void dequeued_locked(const message& m);
  void return_permits_locked(unsigned count);
  void flush_acks_locked();
  void arm_ack_timer_locked();
  void close_waiters_locked(const error& e, actions& out);
  error closed_error_locked() const;
  // Nothing queued and nothing will come: the topic ended, or the consumer closed or failed.
  bool drained_locked() const;
  // What a receive of a drained consumer fails with.
  error drained_error_locked() const;
  static void run(actions& a);

  // consumer_redelivery.cc
  bool single_active() const;
  // Asks for `entries` again (see the top of this file).
  void redeliver_locked(const std::vector<message_id>& entries);
  void redeliver_all_locked();
  // What the client itself tracks for redelivery is void after a reconnect or a seek.
  void forget_redelivery_locked();
  void arm_nack_timer_locked();
  void on_nack_timer();
  void arm_unacked_timer_locked();
  void on_unacked_tick();
  // A message delivered too often: true when it goes to the dead letter topic (into
  // `out`) rather than to the app.
  bool divert_to_dead_letter_locked(const message& m, std::vector<message>& out);
  // Publishes, then acks (nacks on failure); called without the lock.
  void dead_letter(std::vector<message> messages);
  std::shared_ptr<letter_producer> dead_letter_producer_locked();
  std::shared_ptr<letter_producer> retry_letter_producer_locked();

  const std::shared_ptr<client_impl> _client;
  const consumer_options _options;
  // Stamped on every received id: the partition (from the topic's name, as upstream)
  // and the topic, by which a multi-topic consumer routes acks.
  const std::int32_t _partition;
  const std::shared_ptr<const std::string> _topic_ref;
  const std::uint64_t _consumer_id;
  const unsigned _queue_size;
  io::shard& _home;

  mutable std::mutex _mutex;
  std::condition_variable _arrived;
  receive_waits _blocked_receives;  // woken by arrivals only when one can go on
  state _state = state::starting;
  std::optional<error> _failure;
  std::shared_ptr<connection> _connection;
  std::string _consumer_name;
  std::deque<message> _queue;
  std::size_t _queued_bytes = 0;
  std::deque<std::function<void(result<message>)>> _waiters;
  unsigned _permits_to_return = 0;
  std::optional<message_id> _last_dequeued;
  // Readers: the position the next subscribe starts from.
  message_id _start;
  bool _start_inclusive;
  std::optional<std::uint64_t> _skip_before_publish_time;
  bool _seeking = false;
  bool _active = false;
  // The broker said REACHED_END_OF_TOPIC (the topic is terminated and the subscription
  // acknowledged everything): once the queue is empty, receives fail with
  // topic_terminated instead of waiting. A seek clears it.
  bool _end_of_topic = false;
  batch_ack_tracker _batch_acks;
  ack_grouping _acks;
  asio::steady_timer _ack_timer;
  bool _ack_timer_armed = false;
  backoff _backoff;
  asio::steady_timer _reconnect_timer;
  bool _reconnect_scheduled = false;
  negative_ack_tracker _nacks;
  asio::steady_timer _nack_timer;
  bool _nack_timer_armed = false;
  // Set when ack_timeout is on.
  std::optional<unacked_tracker> _unacked;
  asio::steady_timer _unacked_timer;
  bool _unacked_timer_armed = false;
  // Made on first use.
  std::shared_ptr<letter_producer> _dead_letters;
  std::shared_ptr<letter_producer> _retry_letters;
  // Messages on their way to the dead letter topic: a redelivery of one meanwhile is
  // dropped, so it is not dead-lettered twice.
  std::set<message_id> _dead_lettering;
};

}  // namespace magnetar::client_detail
