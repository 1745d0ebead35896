// bookie_client: how the ledger client talks to one bookie. The embedded
// bookie implements it in-process (local_bookie_client); a networked bookie
// will implement it over the wire. Coroutines; thread-safe.
//
// bookie_directory: the bookies a ledger client may place ensembles on.
#pragma once

#include "base/ids.h"
#include "base/result.h"
#include "bookie/add_mode.h"
#include "io/asio.h"
#include "io/run_on.h"
#include "wire/shared_bytes.h"

#include <chrono>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

namespace magnetar::ledger {

struct fence_response {
  entry_id last_entry{-1};
  entry_id last_add_confirmed{-1};
};

class bookie_client {
 public:
  virtual ~bookie_client() = default;
  virtual awaitable<result<void>> add_entry(ledger_id ledger, entry_id entry, entry_id last_add_confirmed,
                                            wire::shared_bytes payload, bookie::add_mode mode) = 0;
  // add_entry without a coroutine of the caller's: `done` gets the outcome on
  // `executor` (the caller's, one thread), never before this returns. The
  // default runs add_entry as a coroutine there; a client that can answer
  // from its own loop (the networked bookie's) overrides it, as a writer
  // makes one such call for each bookie of each entry's write set.
  using add_done = std::function<void(result<void>)>;
  virtual void start_add_entry(ledger_id ledger, entry_id entry, entry_id last_add_confirmed,
                               wire::shared_bytes payload, bookie::add_mode mode, asio::any_io_executor executor,
                               add_done done) {
    io::spawn(executor,
              [this, ledger, entry, last_add_confirmed, payload = std::move(payload), mode,
               done = std::move(done)]() mutable -> awaitable<void> {
                done(co_await add_entry(ledger, entry, last_add_confirmed, std::move(payload), mode));
              });
  }
  virtual awaitable<result<wire::shared_bytes>> read_entry(ledger_id ledger, entry_id entry) = 0;
  // Entries first..last in order, up to the first one this bookie cannot read: that
  // one's error when it is `first`, else the entries before it. A bookie that can serve a
  // range in one request overrides this; the default asks entry by entry.
  virtual awaitable<result<std::vector<wire::shared_bytes>>> read_range(ledger_id ledger, entry_id first,
                                                                        entry_id last) {
    std::vector<wire::shared_bytes> entries;
    for (auto e = first.value(); e <= last.value(); ++e) {
      auto read = co_await read_entry(ledger, entry_id(e));
      if (!read) {
        if (entries.empty()) co_return fail(std::move(read).error());
        break;
      }
      entries.push_back(std::move(read).value());
    }
    co_return entries;
  }
  virtual awaitable<result<entry_id>> read_last_add_confirmed(ledger_id ledger) = 0;
  // The LAC once it passes `previous`, or after `timeout` as it is then (long poll).
  virtual awaitable<result<entry_id>> wait_last_add_confirmed(ledger_id ledger, entry_id previous,
                                                              std::chrono::milliseconds timeout) = 0;
  virtual awaitable<result<fence_response>> fence(ledger_id ledger) = 0;
  virtual awaitable<result<void>> delete_ledger(ledger_id ledger) = 0;
};

class bookie_directory {
 public:
  virtual ~bookie_directory() = default;
  // The ids of the bookies that take new ensembles, sorted.
  virtual std::vector<std::string> writable_bookies() const = 0;
  // The client for a bookie id, or nullptr when it is unknown.
  virtual bookie_client* client(const std::string& bookie_id) = 0;
};

// A fixed set of bookies (standalone: the embedded one). Thread-safe after setup.
class static_bookie_directory final : public bookie_directory {
 public:
  void add(std::string id, std::unique_ptr<bookie_client> client) { _clients[std::move(id)] = std::move(client); }
  std::vector<std::string> writable_bookies() const override {
    std::vector<std::string> ids;
    for (const auto& [id, client] : _clients) ids.push_back(id);
    return ids;
  }
  bookie_client* client(const std::string& id) override {
    auto it = _clients.find(id);
    return it == _clients.end() ? nullptr : it->second.get();
  }

 private:
  std::map<std::string, std::unique_ptr<bookie_client>> _clients;
};

}  // namespace magnetar::ledger
