// connection: one TCP connection to a broker, speaking the Pulsar protocol.
//
// It connects, sends CONNECT (protocol v21) and waits for CONNECTED; then it reads frames
// and routes them: responses to the request that carries their request id, receipts to
// the producer and messages to the consumer registered under the id, PING answered with
// PONG; scalable-topic layout updates to the DAG watch registered under their session id,
// and assignment pushes to the stream consumer registered under their consumer id. When
// idle for keep_alive_interval it pings, and a peer that stays silent for
// another interval is closed. Requests fail with client_errc::timeout after the
// operation timeout, and with connection_closed when the connection goes.
//
// Threading: the socket, the write queue and the reading belong to the connection's
// shard. The public calls are thread-safe; every callback (request completions, the
// listeners) runs on the connection's shard without the connection's lock held, so a
// listener may call back into the connection. Listeners are held weakly.
#pragma once

#include "base/result.h"
#include "client/service_url.h"
#include "io/net.h"
#include "io/shard.h"
#include "magnetar/config.h"
#include "proto/pulsar_api.pb.h"
#include "tls/tls_context.h"
#include "wire/frame.h"
#include "wire/frame_decoder.h"

#include <chrono>
#include <cstdint>
#include <deque>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

namespace magnetar::client_detail {

class connection;

class producer_listener {
 public:
  virtual ~producer_listener() = default;
  virtual void on_send_receipt(const proto::CommandSendReceipt& receipt) = 0;
  virtual void on_send_error(const proto::CommandSendError& error) = 0;
  // The broker closed the producer (CLOSE_PRODUCER): re-create it.
  virtual void on_broker_close(const std::shared_ptr<connection>& c) = 0;
  virtual void on_connection_closed(const std::shared_ptr<connection>& c) = 0;
};

class consumer_listener {
 public:
  virtual ~consumer_listener() = default;
  virtual void on_message(const std::shared_ptr<connection>& c, const proto::CommandMessage& command,
                          wire::frame& frame) = 0;
  virtual void on_active_consumer_change(bool active) = 0;
  virtual void on_reached_end_of_topic() = 0;
  virtual void on_broker_close(const std::shared_ptr<connection>& c) = 0;
  virtual void on_connection_closed(const std::shared_ptr<connection>& c) = 0;
};

// Scalable topics: a DAG watch session (SCALABLE_TOPIC_UPDATE, by session id).
class dag_watch_listener {
 public:
  virtual ~dag_watch_listener() = default;
  virtual void on_scalable_topic_update(const std::shared_ptr<connection>& c,
                                        const proto::CommandScalableTopicUpdate& update) = 0;
  virtual void on_connection_closed(const std::shared_ptr<connection>& c) = 0;
};

// Scalable topics: a stream consumer's registration with the controller
// (SCALABLE_TOPIC_ASSIGNMENT_UPDATE, by consumer id).
class assignment_listener {
 public:
  virtual ~assignment_listener() = default;
  virtual void on_assignment_update(const std::shared_ptr<connection>& c,
                                    const proto::CommandScalableTopicAssignmentUpdate& update) = 0;
  virtual void on_connection_closed(const std::shared_ptr<connection>& c) = 0;
};

class connection : public std::enable_shared_from_this<connection> {
 public:
  using response_callback = std::function<void(result<proto::BaseCommand>)>;
  using ready_callback = std::function<void(result<std::shared_ptr<connection>>)>;

  // `logical` is the broker the client talks to, `physical` where the socket goes (they
  // differ when a proxy forwards to the logical broker).
  connection(io::shard& shard, const client_config& config, broker_address logical, broker_address physical);
  ~connection();
  connection(const connection&) = delete;
  connection& operator=(const connection&) = delete;

  // Starts connecting (once). Errors: connect_error, timeout, and the broker's answer to
  // CONNECT.
  void start();
  // `done` runs once the handshake completed (with this connection) or failed.
  void when_ready(ready_callback done);

  bool is_closed() const;
  const broker_address& logical_address() const { return _logical; }
  const broker_address& physical_address() const { return _physical; }
  io::shard& shard() { return _shard; }
  // What CONNECTED allows (the broker's max message size), or the default.
  std::size_t max_message_size() const;
  // Whether CONNECTED said the broker serves scalable topics (feature flag 8).
  bool supports_scalable_topics() const;

  using shared_frame = std::shared_ptr<const std::vector<std::byte>>;
  // Queues one encoded frame. Frames go out in the order of the calls; after close
  // they are dropped. A shared frame is not copied (a producer keeps it to re-send).
  void write(std::vector<std::byte> frame);
  void write(shared_frame frame);
  // Writes a request and calls `done` with the command that answers `request_id`: its
  // response, or CommandError turned into an error (server_error.h).
  void request(std::uint64_t request_id, const proto::BaseCommand& command, response_callback done);
  awaitable<result<proto::BaseCommand>> request(std::uint64_t request_id, const proto::BaseCommand& command);

  void add_producer(std::uint64_t producer_id, std::weak_ptr<producer_listener> listener);
  void remove_producer(std::uint64_t producer_id);
  void add_consumer(std::uint64_t consumer_id, std::weak_ptr<consumer_listener> listener);
  void remove_consumer(std::uint64_t consumer_id);
  // Scalable topics. Registering on a closed connection calls on_connection_closed at once
  // (on the connection's shard).
  void add_dag_watch(std::uint64_t session_id, std::weak_ptr<dag_watch_listener> listener);
  void remove_dag_watch(std::uint64_t session_id);
  void add_assignment_listener(std::uint64_t consumer_id, std::weak_ptr<assignment_listener> listener);
  void remove_assignment_listener(std::uint64_t consumer_id);

  // Closes the socket, fails what waits and tells the listeners. Idempotent.
  void close(error why);

 private:
  enum class state { idle, connecting, ready, closed };
  struct pending_request {
    response_callback done;
    std::chrono::steady_clock::time_point deadline;
  };

  awaitable<void> run();
  awaitable<result<void>> connect_socket();
  // The client side of the TLS handshake, with the config's trust and certificate.
  awaitable<result<void>> tls_handshake();
  void handshake_done(result<void> r);
  void complete_request(std::uint64_t request_id, result<proto::BaseCommand> r);
  void start_write();  // on the shard
  void arm_tick();
  void on_tick();
  void close_on_shard(error why);

  // Incoming commands (connection_dispatch.cc), on the shard: on_frame routes each
  // command to the function for its type, as the broker's handlers::dispatch does.
  void on_frame(wire::frame& f);
  void on_connected(const proto::CommandConnected& c);
  // The broker's AUTH_CHALLENGE: the credentials again, read afresh.
  void on_auth_challenge(const proto::CommandAuthChallenge& c);
  // CONNECT's auth method and data from the config's auth_plugin/auth_params.
  result<std::pair<std::string, std::string>> read_credentials() const;
  void on_send_receipt(const proto::CommandSendReceipt& c);
  void on_send_error(const proto::CommandSendError& c);
  void on_message(const proto::CommandMessage& c, wire::frame& f);
  void on_active_consumer_change(const proto::CommandActiveConsumerChange& c);
  void on_reached_end_of_topic(const proto::CommandReachedEndOfTopic& c);
  void on_close_producer(const proto::CommandCloseProducer& c);
  void on_close_consumer(const proto::CommandCloseConsumer& c);
  void on_scalable_topic_update(const proto::CommandScalableTopicUpdate& c);
  void on_assignment_update(const proto::CommandScalableTopicAssignmentUpdate& c);
  void on_error(const proto::CommandError& c);
  void on_producer_success(const proto::BaseCommand& c);
  void on_response(const proto::BaseCommand& c);
  // The listener registered under an id, or null when there is none or it has gone.
  // They take _mutex for the look-up only: listeners are called without it.
  std::shared_ptr<producer_listener> find_producer(std::uint64_t producer_id) const;
  std::shared_ptr<consumer_listener> find_consumer(std::uint64_t consumer_id) const;
  std::shared_ptr<dag_watch_listener> find_dag_watch(std::uint64_t session_id) const;
  std::shared_ptr<assignment_listener> find_assignment_listener(std::uint64_t consumer_id) const;
  // The same, and unregistered: the broker closed the producer or consumer, so nothing
  // more arrives for that id on this connection.
  std::shared_ptr<producer_listener> take_producer(std::uint64_t producer_id);
  std::shared_ptr<consumer_listener> take_consumer(std::uint64_t consumer_id);

  io::shard& _shard;
  const client_config _config;
  const broker_address _logical;
  const broker_address _physical;
  asio::ip::tcp::socket _socket;
  // With a pulsar+ssl:// address: the stream over _socket, after the handshake.
  std::shared_ptr<tls::ssl::context> _tls_context;
  std::unique_ptr<tls::ssl::stream<asio::ip::tcp::socket&>> _tls;
  asio::steady_timer _tick;
  wire::frame_decoder _decoder;

  // Frames wait here in the order write() was called. Guarded by a mutex of its own,
  // not handed over by post(): Asio runs a post made on the shard's own thread (a batch
  // timer's flush) after posts made meanwhile from other threads (the application's
  // sends), which would reorder a producer's SENDs.
  std::mutex _write_mutex;
  std::deque<shared_frame> _write_queue;  // guarded by _write_mutex
  bool _writing = false;                  // guarded by _write_mutex

  // Shard only.
  std::chrono::steady_clock::time_point _last_received;
  std::chrono::steady_clock::time_point _connect_deadline;
  bool _ping_outstanding = false;

  mutable std::mutex _mutex;
  state _state = state::idle;
  std::vector<ready_callback> _ready_waiters;
  std::map<std::uint64_t, pending_request> _requests;
  std::map<std::uint64_t, std::weak_ptr<producer_listener>> _producers;
  std::map<std::uint64_t, std::weak_ptr<consumer_listener>> _consumers;
  std::map<std::uint64_t, std::weak_ptr<dag_watch_listener>> _dag_watches;
  std::map<std::uint64_t, std::weak_ptr<assignment_listener>> _assignment_listeners;
  std::size_t _max_message_size;
  bool _supports_scalable_topics = false;
};

}  // namespace magnetar::client_detail
