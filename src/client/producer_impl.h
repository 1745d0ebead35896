// producer_impl: the state and protocol of one producer (see magnetar/producer.h for
// the behaviour users see).
//
// Sends are queued as ops (one SEND frame each: a message or a batch), kept until their
// receipt so they can be sent again, in order, on a new connection. Receipts arrive in
// op order; one with a later sequence id than expected means the broker lost track, and
// the connection is dropped so that everything is sent again.
//
// Threading: all state is under `_mutex`; public calls come from any thread, listener
// calls from the connection's shard, timers and the reconnect coroutine on the
// producer's home shard. User callbacks run after the lock is released, on io threads.
#pragma once

#include "client/backoff.h"
#include "client/client_impl.h"
#include "client/connection.h"
#include "client/producer_base.h"
#include "client/producer_batch.h"
#include "magnetar/producer.h"

#include <chrono>
#include <condition_variable>
#include <deque>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

namespace magnetar::client_detail {

class producer_impl final : public producer_base,
                            public producer_listener,
                            public std::enable_shared_from_this<producer_impl> {
 public:
  producer_impl(std::shared_ptr<client_impl> client, std::string topic, producer_config config);
  ~producer_impl() override;

  // Lookup, connect and PRODUCER. Errors: the lookup's and the broker's (producer_busy,
  // topic_not_found, ...), timeout.
  awaitable<result<void>> start();

  void send_async(message m, send_callback done) override;
  // An entry as another broker stored it (client/entry_producer.h): sent as it is, under
  // `sequence_id` (increasing from call to call), which only its receipt carries.
  void send_entry_async(proto::MessageMetadata metadata, std::vector<std::byte> payload, std::uint64_t sequence_id,
                        send_callback done);
  void flush_async(std::function<void(result<void>)> done) override;
  awaitable<result<void>> close() override;
  void shutdown() override;

  const std::string& topic() const override { return _topic; }
  std::string producer_name() const override;
  std::int64_t last_sequence_id() const override;
  bool is_connected() const override;
  const std::shared_ptr<client_impl>& client() const override { return _client; }
  // Before start(): the subscription the broker creates with the producer (a consumer's
  // dead letter producer asks for one so dead letters are kept before anyone reads).
  void set_initial_subscription_name(std::string name) { _initial_subscription_name = std::move(name); }

  // producer_listener
  void on_send_receipt(const proto::CommandSendReceipt& receipt) override;
  void on_send_error(const proto::CommandSendError& error) override;
  void on_broker_close(const std::shared_ptr<connection>& c) override;
  void on_connection_closed(const std::shared_ptr<connection>& c) override;

 private:
  // terminated: the broker said TopicTerminatedError (on a SEND, or to the PRODUCER of a
  // reconnect after it closed the producer): every send fails with topic_terminated.
  enum class state { starting, ready, connecting, closing, closed, failed, terminated };
  using clock = std::chrono::steady_clock;
  using actions = std::vector<std::function<void()>>;

  struct op {
    connection::shared_frame frame;
    std::uint64_t sequence_id = 0;
    int num_messages = 1;
    bool batched = false;
    std::vector<send_callback> callbacks;
    std::vector<std::function<void(result<void>)>> flush_callbacks;
    clock::time_point deadline;
  };

  awaitable<result<void>> connect_once();
  // `at_once`: the broker asked the producer to go (CLOSE_PRODUCER: an unload, a
  // termination), so the first attempt needs no back-off; later ones back off.
  void connection_lost(const std::shared_ptr<connection>& c, std::string_view why, bool at_once = false);
  // `topic_moving`: the last attempt failed with service_not_ready (see backoff.h).
  void schedule_reconnect_locked(bool at_once = false, bool topic_moving = false);
  awaitable<void> reconnect();

  void flush_batch_locked();
  void push_op_locked(built_entry e);
  void arm_batch_timer_locked();
  void arm_timeout_timer_locked();
  void on_timeout_tick();
  // Completes `o` (success or failure) into `out`, to run without the lock.
  void complete_locked(op& o, result<message_id> r, actions& out);
  void fail_all_locked(const error& e, actions& out);
  // Enters `failed`, or `terminated` for topic_terminated, failing everything pending.
  void fail_for_good_locked(const error& e, actions& out);
  static void run(actions& a);

  const std::shared_ptr<client_impl> _client;
  const std::string _topic;
  // From the topic's name: receipts carry it in their ids, as upstream's do.
  const std::int32_t _partition;
  const producer_config _config;
  const std::uint64_t _producer_id;
  io::shard& _home;

  mutable std::mutex _mutex;
  std::condition_variable _room;
  state _state = state::starting;
  std::shared_ptr<connection> _connection;
  std::string _producer_name;
  std::string _initial_subscription_name;
  std::uint64_t _epoch = 0;
  std::optional<std::uint64_t> _topic_epoch;
  bool _created_once = false;
  std::int64_t _last_sequence_id_published;
  std::uint64_t _next_sequence_id;
  std::size_t _pending_messages = 0;  // queued in the batch or awaiting a receipt
  batch_container _batch;
  std::deque<op> _pending;
  std::vector<std::function<void(result<void>)>> _idle_flush_callbacks;
  backoff _backoff;
  bool _batch_timer_armed = false;
  asio::steady_timer _timeout_timer;
  bool _timeout_timer_armed = false;
  asio::steady_timer _reconnect_timer;
  bool _reconnect_scheduled = false;
};

}  // namespace magnetar::client_detail
