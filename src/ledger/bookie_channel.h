// bookie_channel: one pipelined connection to a networked bookie, the engine of
// remote_bookie_client. All of its state lives on its executor (one thread).
// A call made on that thread (the usual case: remote_bookie_client keeps a
// channel per shard) queues its request at once and is resumed by the read
// loop with the answer, no hop and no wake-up; a call from elsewhere hops
// there first and back after.
#pragma once

#include "base/result.h"
#include "io/net.h"
#include "io/shard.h"
#include "ledger/remote_bookie_client.h"
#include "proto/bookie_protocol.pb.h"
#include "tls/tls_context.h"
#include "wire/shared_bytes.h"

#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <unordered_map>

namespace magnetar::ledger::detail {

class bookie_channel : public std::enable_shared_from_this<bookie_channel> {
 public:
  // `home` is the shard whose executor `executor` is, or nullptr when it is no shard's.
  bookie_channel(asio::any_io_executor executor, io::shard* home, remote_bookie_options options);

  // The answer (any status), or why none came (connect, broken connection, timeout).
  // `add_body`: an add's body, sent without a copy into the request (see append_frame).
  awaitable<result<bookie_protocol::response>> call(bookie_protocol::request request,
                                                    std::optional<wire::shared_bytes> add_body = std::nullopt);
  // The same for a caller on the channel's own thread that wants no
  // coroutine: `done` runs there, from the read loop, never before this returns.
  void call_here(bookie_protocol::request request, std::optional<wire::shared_bytes> add_body,
                 std::function<void(result<bookie_protocol::response>)> done);
  // Closes the connection; calls in flight fail. On the channel's executor.
  void close();
  const asio::any_io_executor& executor() const { return _executor; }
  const std::string& address() const { return _options.address; }
  io::shard* home() const { return _home; }

 private:
  // Resumes a waiting call with its answer, on the call's own executor.
  struct answer_sink {
    virtual ~answer_sink() = default;
    virtual void deliver(result<bookie_protocol::response> answer) = 0;
  };
  template <class Handler>
  struct handler_sink;
  struct function_sink;
  struct pending {
    std::unique_ptr<answer_sink> sink;
    std::chrono::steady_clock::time_point deadline;
  };

  void submit(std::unique_ptr<answer_sink> sink, bookie_protocol::request request,
              std::optional<wire::shared_bytes> add_body);
  awaitable<void> connect_and_read();
  // The TLS handshake on the connected socket, which moves into _tls.
  awaitable<result<void>> start_tls();
  awaitable<void> write_loop();
  awaitable<void> sweep_loop();
  void finish(std::uint64_t txn, result<bookie_protocol::response> answer);
  void fail_all(const error& e);

  asio::any_io_executor _executor;
  io::shard* const _home;
  const remote_bookie_options _options;
  asio::ip::tcp::socket _socket;
  // With options.tls: the connection's TLS stream (it owns the connected socket; the
  // read and write loops hold it while they use it, so a reconnect can replace it).
  std::shared_ptr<tls::ssl::context> _tls_context;
  std::shared_ptr<tls::ssl::stream<asio::ip::tcp::socket>> _tls;
  enum class state { idle, connecting, open } _state = state::idle;
  std::unordered_map<std::uint64_t, pending> _in_flight;
  std::string _outbox;  // frames not yet written (all of them, until the connection is open)
  bool _writing = false;
  bool _sweeping = false;
  std::uint64_t _next_txn = 1;
  std::uint64_t _generation = 0;  // which connection a read loop belongs to
};

}  // namespace magnetar::ledger::detail
