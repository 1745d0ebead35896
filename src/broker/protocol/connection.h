// connection: one client's TCP connection to the broker, on the shard that accepted it.
//
// The read loop cuts the byte stream into frames and hands each to the command handlers
// (handlers/), in order. Before CONNECT only CONNECT is taken; anything else closes the
// connection, as upstream brokers do. A frame that breaks the framing (too large, sizes
// that don't add up) closes this connection only; a command that is well framed but
// malformed gets an ERROR naming what is wrong, and reading goes on.
//
// Writes come from any shard: a topic on another shard sends receipts and messages
// straight to the connection with send(), which queues the bytes under a mutex. When
// no write is under way, the shard that queued the first frame writes the queue itself
// once its current handler is done (write_direct: every frame that handler queued, a
// journal group's receipts or a dispatch round's messages, in one sendmsg), instead of
// waking the connection's shard for it: at 30,000 unbatched publishes a second, that
// wake-up per group was a third of the broker's context switches. What the socket
// doesn't take at once goes to the writer coroutine on the connection's shard.
//
// A client has the config's handshake_timeout from its TCP connect to CONNECTED (the TLS
// handshake included), or the connection closes; until CONNECTED its frames may not
// exceed connect_frame_limit, so that a peer nobody authenticated can't make the broker
// hold a buffer of maxMessageSize. Over TLS (brokerServicePortTls) the read loop first
// completes the handshake, and every write goes through the writer coroutine on the
// connection's shard: an SSL object can't be written from another shard while its own
// reads, so TLS connections skip write_direct.
//
// With authentication, CONNECT's credentials name the connection's principal; expired
// ones are refreshed through AUTH_CHALLENGE (auth_refresh_loop).
//
// Keep-alive: every keepAliveIntervalSeconds, a connection that received nothing since
// the last tick gets a PING; one that still received nothing by the next tick is
// closed. Publishes awaiting their receipt are bounded: past the limit, reading pauses
// until receipts catch up (the broker's back-pressure on producers).
//
// Owned by shared_ptr (the read loop, the writer and every producer and consumer on it
// hold one). State other than the send queue is touched on the connection's shard only.
#pragma once

#include "auth/authenticator.h"
#include "broker/api/broker_config.h"
#include "broker/api/client_channel.h"
#include "broker/api/client_ids.h"
#include "io/gate.h"
#include "io/net.h"
#include "io/shard.h"
#include "tls/tls_context.h"
#include "wire/frame_decoder.h"
#include "wire/shared_bytes.h"

#include <atomic>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace magnetar::broker {

class broker_context;
class consumer;
class producer;

class connection final : public client_channel, public std::enable_shared_from_this<connection> {
 public:
  // `alive` is held for the object's life: the broker's stop() waits until every
  // connection is gone (its coroutines and requests use the broker to their end).
  // `tls`: the server context of a TLS port (null: plaintext).
  connection(broker_context& broker, io::shard& shard, asio::ip::tcp::socket socket, std::uint64_t id,
             io::gate::pass alive, std::shared_ptr<tls::ssl::context> tls = nullptr);

  ~connection() override;

  // Starts the read loop, the writer and the keep-alive on the connection's shard.
  void start();
  // Closes the socket; the read loop then ends and releases producers and consumers.
  // Thread-safe.
  void close();
  bool is_closed() const override { return _closed.load(std::memory_order_acquire); }
  awaitable<bool> check_liveness(std::chrono::milliseconds timeout) override;

  // Queues a frame (and optionally a stored entry written right after it) for the
  // socket. Thread-safe; frames go out in the order of the calls.
  void send(std::vector<std::byte> frame, wire::shared_bytes tail = {}) override;

  std::uint64_t id() const override { return _id; }
  io::shard& shard() { return _shard; }
  broker_context& broker() { return _broker; }
  const broker_config& config() const;
  const std::string& remote_address() const override { return _remote_address; }
  const std::string& connected_since() const override { return _connected_since; }
  const std::string& client_version() const override { return _client_version; }
  int protocol_version() const { return _protocol_version; }

  // Shard-local: the connection's producers and consumers by their client-chosen ids.
  // One the broker closed stays until the client reuses its id or closes it; the
  // lookups return null for an id with none.
  std::shared_ptr<producer> producer_of(producer_id id) const;
  void attach(producer_id id, std::shared_ptr<producer> p);
  std::shared_ptr<producer> detach_producer(producer_id id);
  std::shared_ptr<consumer> consumer_of(consumer_id id) const;
  void attach(consumer_id id, std::shared_ptr<consumer> c);
  std::shared_ptr<consumer> detach_consumer(consumer_id id);

  // Publish back-pressure: counted on the connection's shard when a SEND is handed to
  // a topic, released from the topic's shard when its receipt or error is sent.
  void publish_started() { _pending_publishes.fetch_add(1, std::memory_order_relaxed); }
  void publish_completed() override;

  // Hands a publish to the topic's shard. The publishes decoded from one socket read go
  // to each shard in one post, at the end of the read or before any other command (so
  // every command keeps its order): a post per SEND woke the topic's shard once per
  // message.
  void defer_publish(io::shard& target, std::function<void()> publish);

  // The handshake (handlers/connect.cc).
  void set_connected(std::string client_version, int protocol_version);
  bool is_connected() const { return _connected; }
  // Who the client is, when the broker authenticates (shard-local). A refresh (an
  // AUTH_RESPONSE to the broker's challenge) replaces it.
  void set_principal(auth::principal who, bool supports_auth_refresh);
  const std::optional<auth::principal>& principal() const { return _principal; }
  // The common name of the client's verified TLS certificate (mutual TLS); nullopt
  // without TLS or without a client certificate.
  const std::optional<std::string>& peer_common_name() const { return _peer_common_name; }
  bool supports_auth_refresh() const { return _supports_auth_refresh; }
  // Whether the broker sent an AUTH_CHALLENGE not yet answered.
  bool challenge_outstanding() const { return _challenge_outstanding; }
  void set_challenge_outstanding(bool outstanding) { _challenge_outstanding = outstanding; }

 private:
  struct outgoing {
    std::vector<std::byte> frame;
    wire::shared_bytes tail;
  };

  awaitable<void> read_loop();
  // The server side of the TLS handshake; false when it failed or timed out.
  awaitable<bool> tls_handshake();
  awaitable<void> write_loop();
  // Writes the queue without blocking, on the calling thread; the writer coroutine takes
  // what is left. Only by whoever took the writer's role (see send()).
  void write_direct();
  // Wakes the writer coroutine, on the connection's shard.
  void wake_writer();
  awaitable<void> keep_alive_loop();
  // Every authenticationRefreshCheckSeconds: credentials past their expiry get an
  // AUTH_CHALLENGE (a client that can't refresh, or left the last one unanswered, is
  // closed), as upstream.
  awaitable<void> auth_refresh_loop();
  void send_ping();
  awaitable<bool> check_liveness_here(std::chrono::milliseconds timeout);
  awaitable<void> wait_for_publish_room();
  void handle_frame(wire::frame& frame);
  void flush_publishes();
  void release_all();

  io::gate::pass _alive;  // first, so that it is released last
  broker_context& _broker;
  io::shard& _shard;
  asio::ip::tcp::socket _socket;
  std::shared_ptr<tls::ssl::context> _tls_context;  // keeps the context the stream uses
  std::unique_ptr<tls::ssl::stream<asio::ip::tcp::socket&>> _tls;
  std::optional<std::string> _peer_common_name;
  const std::uint64_t _id;
  std::string _remote_address;
  std::string _connected_since;
  wire::frame_decoder _decoder;

  std::atomic<bool> _closed{false};
  bool _connected = false;
  std::string _client_version;
  int _protocol_version = 0;
  std::optional<auth::principal> _principal;
  bool _supports_auth_refresh = false;
  bool _challenge_outstanding = false;
  bool _received_since_tick = false;
  bool _ping_outstanding = false;
  // Socket reads so far (the read loop's), for a liveness check to see an answer.
  std::uint64_t _reads = 0;

  std::mutex _out_mutex;
  std::vector<outgoing> _out;  // guarded by _out_mutex
  bool _writer_idle = false;   // guarded by _out_mutex: the writer waits for a wake-up
  // Guarded by _out_mutex, which write_direct holds over its sendmsg: the socket is
  // closed under it, so no other shard writes to a descriptor number reused meanwhile.
  bool _socket_closed = false;
  asio::steady_timer _writer_wake;
  asio::steady_timer _keep_alive_timer;
  asio::steady_timer _handshake_deadline;  // from start() to CONNECTED
  asio::steady_timer _auth_refresh_timer;

  std::atomic<std::int64_t> _pending_publishes{0};
  // Shard-local (the read loop): publishes not yet posted, by target shard.
  std::vector<std::pair<io::shard*, std::vector<std::function<void()>>>> _deferred_publishes;
  std::atomic<bool> _reader_paused{false};
  asio::steady_timer _reader_wake;

  std::map<producer_id, std::shared_ptr<producer>> _producers;
  std::map<consumer_id, std::shared_ptr<consumer>> _consumers;
};

}  // namespace magnetar::broker
