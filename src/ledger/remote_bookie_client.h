// remote_bookie_client: the bookie_client of a bookie across the network
// (`magnetar bookie`), over proto/bookie_protocol.proto.
//
// One TCP connection per calling shard, made when the first call needs it and
// made again after it breaks: a shard's calls never leave its thread (a hop
// to a connection's thread and back cost more than the call itself). Calls
// from a thread that is no shard's share one connection on the executor
// given at construction, and hop there. Calls
// are pipelined: requests queued while a write is on the wire go out together
// in the next write (one syscall for many entries). A call fails when the
// connection can't be made or breaks (every call then in flight fails: the
// ledger client decides what to re-send), or after `timeout` without an
// answer (BookKeeper's addEntryTimeout/readEntryTimeout).
// Thread-safety: calls from any thread; construct and destroy off the
// connections' executors: the one given and every shard that called, all of
// which must outlive the client.
#pragma once

#include "io/asio.h"
#include "ledger/bookie_client.h"
#include "tls/settings.h"

#include <chrono>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

namespace magnetar::ledger {

namespace detail {
class bookie_channel;
}  // namespace detail

struct remote_bookie_options {
  std::string address;  // host:port, the bookie's id
  std::chrono::milliseconds timeout{10'000};
  std::chrono::milliseconds connect_timeout{5'000};  // TCP connect and TLS handshake
  // TLS to the bookie (Pulsar's bookkeeperTLSClientAuthentication and its files); none:
  // plaintext.
  std::optional<tls::client_settings> tls;
};

class remote_bookie_client final : public bookie_client {
 public:
  remote_bookie_client(asio::any_io_executor executor, remote_bookie_options options);
  ~remote_bookie_client() override;

  awaitable<result<void>> add_entry(ledger_id ledger, entry_id entry, entry_id last_add_confirmed,
                                    wire::shared_bytes payload, bookie::add_mode mode) override;
  void start_add_entry(ledger_id ledger, entry_id entry, entry_id last_add_confirmed, wire::shared_bytes payload,
                       bookie::add_mode mode, asio::any_io_executor executor, add_done done) override;
  awaitable<result<wire::shared_bytes>> read_entry(ledger_id ledger, entry_id entry) override;
  awaitable<result<std::vector<wire::shared_bytes>>> read_range(ledger_id ledger, entry_id first,
                                                                entry_id last) override;
  awaitable<result<entry_id>> read_last_add_confirmed(ledger_id ledger) override;
  // The bookie holds the call up to `timeout`: keep it below the client's call timeout.
  awaitable<result<entry_id>> wait_last_add_confirmed(ledger_id ledger, entry_id previous,
                                                      std::chrono::milliseconds timeout) override;
  awaitable<result<fence_response>> fence(ledger_id ledger) override;
  awaitable<result<void>> delete_ledger(ledger_id ledger) override;

 private:
  // The calling shard's channel (made on its first call), or the shared one.
  detail::bookie_channel& channel();

  const asio::any_io_executor _executor;
  const remote_bookie_options _options;
  std::mutex _mutex;
  std::vector<std::shared_ptr<detail::bookie_channel>> _channels;  // the shared one first
};

}  // namespace magnetar::ledger
