// bookie_server: a bookie's network endpoint (`magnetar bookie`), serving the
// requests of proto/bookie_protocol.proto to ledger clients on other hosts.
//
// Each connection lives on one shard (given out in turn) and is pipelined:
// it reads requests while earlier ones are in the bookie, answers each when
// it is done (in any order, by txn_id), and writes every answer that is ready
// in one write. When a connection has max_in_flight requests in the bookie it
// stops reading until one finishes (back-pressure through TCP). A frame past
// max_frame_bytes or a request that doesn't parse gets EBADREQ, and then the
// connection closes; other connections are untouched. A connection may be TLS (see
// bookie_server_options::tls), told from plaintext by its first byte.
// Thread-safety: start and stop from one thread, off the shards.
#pragma once

#include "base/result.h"
#include "bookie/bookie.h"
#include "io/gate.h"
#include "io/net.h"
#include "io/shard.h"
#include "proto/bookie_protocol.pb.h"
#include "tls/server_context_source.h"

#include <array>
#include <atomic>
#include <chrono>
#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

namespace magnetar::bookie {

class bookie_connection;

struct bookie_server_options {
  std::string bind_address = "0.0.0.0";
  std::uint16_t port = 3181;  // bookiePort; 0: any free port
  // BookKeeper's nettyMaxFrameSizeBytes: an entry of the broker's largest
  // message, and room for the request around it.
  std::size_t max_frame_bytes = 5 * 1024 * 1024 + 64 * 1024;
  std::size_t max_in_flight_per_connection = 10'000;
  std::string bookie_id;  // what info answers (host:port)
  // TLS (BookKeeper's tlsProviderFactoryClass): a client whose first byte is a TLS
  // record (0x16; a frame's length never starts with it) gets a handshake with the
  // source's current context, within tls_handshake_timeout; with require_tls
  // (tlsClientAuthentication) a plaintext client is refused. Null: plaintext only.
  std::shared_ptr<tls::server_context_source> tls;
  bool require_tls = false;
  std::chrono::seconds tls_handshake_timeout{10};
};

// What a server has answered since it started (the bookie's /metrics).
struct bookie_server_stats {
  std::uint64_t adds_ok = 0, adds_failed = 0;
  std::uint64_t reads_ok = 0, reads_failed = 0;   // single entries and ranges
  std::uint64_t add_micros = 0, read_micros = 0;  // time from request to answer, summed
  std::uint64_t bytes_added = 0, bytes_read = 0;  // entry payloads
  // Adds refused because the bookie can't write (a full disk, a failed journal).
  std::uint64_t storage_failures = 0;
  std::uint64_t connections = 0;  // open now
};

class bookie_server {
 public:
  bookie_server(bookie& b, io::shard_set& shards, bookie_server_options options);
  ~bookie_server();
  bookie_server(const bookie_server&) = delete;
  bookie_server& operator=(const bookie_server&) = delete;

  // Binds and starts accepting; fails naming the address when it can't bind.
  result<void> start();
  // Stops accepting, closes every connection and waits for their requests.
  void stop();
  std::uint16_t port() const { return _port; }
  // Whether the bookie takes writes (info answers it; a full disk clears it).
  void set_read_only(bool read_only) { _read_only.store(read_only); }
  bool read_only() const { return _read_only.load(); }
  bookie_server_stats stats() const;

 private:
  awaitable<void> accept_loop(std::shared_ptr<io::gate::pass> held);
  enum class request_kind { add, read, other };
  void count(request_kind kind, std::size_t added, const bookie_protocol::response& response,
             std::chrono::steady_clock::duration took);

  enum counter : std::size_t {
    adds_ok,
    adds_failed,
    reads_ok,
    reads_failed,
    add_micros,
    read_micros,
    bytes_added,
    bytes_read,
    storage_failures,
    connections,
    counter_count
  };
  std::array<std::atomic<std::uint64_t>, counter_count> _counters{};

  bookie& _bookie;
  io::shard_set& _shards;
  const bookie_server_options _options;
  std::unique_ptr<asio::ip::tcp::acceptor> _acceptor;
  std::uint16_t _port = 0;
  std::atomic<bool> _read_only{false};
  io::gate _accepting{"bookie server"};
  io::gate _connections{"bookie connections"};
  std::mutex _open_mutex;
  std::vector<std::weak_ptr<bookie_connection>> _open;

  friend class bookie_connection;
};

}  // namespace magnetar::bookie
