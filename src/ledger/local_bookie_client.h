// local_bookie_client: the bookie_client of a bookie in this process.
// Calls go straight to bookie::bookie; no copy, no socket. Thread-safe.
#pragma once

#include "bookie/bookie.h"
#include "ledger/bookie_client.h"

namespace magnetar::ledger {

class local_bookie_client final : public bookie_client {
 public:
  explicit local_bookie_client(bookie::bookie& b) : _bookie(b) {}

  awaitable<result<void>> add_entry(ledger_id ledger, entry_id entry, entry_id lac, wire::shared_bytes payload,
                                    bookie::add_mode mode) override {
    return _bookie.add_entry(ledger, entry, lac, std::move(payload), mode);
  }
  void start_add_entry(ledger_id ledger, entry_id entry, entry_id lac, wire::shared_bytes payload,
                       bookie::add_mode mode, asio::any_io_executor executor, add_done done) override {
    _bookie.start_add(ledger, entry, lac, std::move(payload), mode, std::move(executor), std::move(done));
  }
  awaitable<result<wire::shared_bytes>> read_entry(ledger_id ledger, entry_id entry) override {
    return _bookie.read_entry(ledger, entry);
  }
  awaitable<result<std::vector<wire::shared_bytes>>> read_range(ledger_id ledger, entry_id first,
                                                                entry_id last) override {
    return _bookie.read_range(ledger, first, last);
  }
  awaitable<result<entry_id>> read_last_add_confirmed(ledger_id ledger) override {
    return _bookie.read_last_add_confirmed(ledger);
  }
  awaitable<result<entry_id>> wait_last_add_confirmed(ledger_id ledger, entry_id previous,
                                                      std::chrono::milliseconds timeout) override {
    return _bookie.wait_last_add_confirmed(ledger, previous, timeout);
  }
  awaitable<result<fence_response>> fence(ledger_id ledger) override {
    auto fenced = co_await _bookie.fence(ledger);
    if (!fenced) co_return fail(std::move(fenced).error());
    co_return fence_response{fenced.value().last_entry, fenced.value().last_add_confirmed};
  }
  awaitable<result<void>> delete_ledger(ledger_id ledger) override { return _bookie.delete_ledger(ledger); }

 private:
  bookie::bookie& _bookie;
};

}  // namespace magnetar::ledger
