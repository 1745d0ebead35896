// add_pipeline: the adds of one ledger writer in flight (BookKeeper's
// pending adds), with ensemble changes.
//
// Each add goes to the bookies of its write set and is confirmed, in entry
// order, once its ack quorum holds it. When a bookie fails an add (any error
// but a fence, the client's timeout included), the pipeline changes the
// ensemble as BookKeeper does: it picks a writable bookie outside the
// ensemble at random, records a new ensemble from the first unconfirmed entry
// on (a versioned write of the ledger's metadata, so that a writer whose
// ledger another client recovered learns it there and stops), and re-sends
// every pending add to the bookies new in its write set. While that write is
// under way no add is confirmed (BookKeeper blocks completions the same way):
// the metadata must name the new bookie for an entry before any reader can
// learn that entry exists. An ack counts only while its bookie still holds
// that place in the entry's ensemble, so a replaced bookie confirms nothing,
// and an entry is confirmed once.
//
// With no bookie to take a failed one's place, adds go on while every
// pending entry can still reach its ack quorum without it (as BookKeeper's
// delayEnsembleChange) and the change is tried again at the next add; once
// an entry cannot, every pending add fails and the writer takes no more.
//
// Threading: one executor, the writer's. Sends answer there and keep the
// pipeline alive, so a writer can go away with sends in flight.
#pragma once

#include "base/result.h"
#include "bookie/add_mode.h"
#include "io/asio.h"
#include "io/oneshot_signal.h"
#include "ledger/bookie_client.h"
#include "ledger/ledger_metadata.h"
#include "meta/store.h"

#include <cstdint>
#include <deque>
#include <functional>
#include <memory>
#include <optional>
#include <set>
#include <string>

namespace magnetar::ledger {

class add_pipeline : public std::enable_shared_from_this<add_pipeline> {
 public:
  // Adds continue after `last_confirmed` (-1 for a new ledger; the LAC for a
  // recovery, whose adds are recovery adds).
  add_pipeline(meta::store& store, bookie_directory& bookies, ledger_metadata metadata, std::int64_t version,
               std::int64_t last_confirmed, bookie::add_mode mode);

  // The new entry's id, once it and every entry before it are confirmed.
  awaitable<result<entry_id>> add(wire::shared_bytes payload);
  // add() without a coroutine: the entry's id is taken now, in call order, and `done`
  // runs on `executor` (the writer's: every call passes the same) once the entry and
  // every entry before it are confirmed, or the writer failed; never before this returns.
  using add_done = std::function<void(result<entry_id>)>;
  void start_add(wire::shared_bytes payload, asio::any_io_executor executor, add_done done);
  // Completes when no add is pending (each confirmed or failed) and no
  // ensemble change is under way.
  awaitable<void> drain();

  const ledger_metadata& metadata() const { return _metadata; }
  std::int64_t version() const { return _version; }
  // After the writer records its own change (closing the ledger).
  void set_metadata(ledger_metadata metadata, std::int64_t version);
  std::int64_t confirmed() const { return _confirmed; }
  std::int64_t pushed() const { return _pushed; }
  const std::optional<error>& failure() const { return _failure; }

 private:
  struct pending_add {
    std::int64_t entry;
    wire::shared_bytes payload;
    std::uint64_t acked = 0;    // ensemble positions that hold it
    std::uint64_t sending = 0;  // ensemble positions with an add on the way
    add_done done;
  };

  pending_add* find(std::int64_t entry);
  // Sends to each bookie of the write set that neither holds the entry, nor
  // is being sent it, nor failed.
  void send_missing(pending_add& add);
  void start_send(std::int64_t entry, std::size_t position, const std::string& bookie_id, wire::shared_bytes payload);
  void on_sent(std::int64_t entry, std::size_t position, const std::string& bookie_id, result<void> sent);
  // Whether the entry can still reach its ack quorum without the failed bookies.
  bool quorum_reachable(const pending_add& add) const;
  void confirm_ready();
  void start_ensemble_change();
  awaitable<void> change_ensemble();
  void fail_all(error e);
  void wake_drain();

  meta::store& _store;
  bookie_directory& _bookies;
  asio::any_io_executor _executor;  // the writer's, from its first add
  ledger_metadata _metadata;
  std::int64_t _version;
  const bookie::add_mode _mode;
  std::int64_t _pushed;
  std::int64_t _confirmed;
  std::deque<pending_add> _pending;  // entries _confirmed + 1 ... _pushed
  std::set<std::string> _failed;     // bookies in the ensemble that failed an add
  bool _changing = false;
  std::optional<error> _failure;
  std::shared_ptr<io::oneshot_signal> _drained;
};

}  // namespace magnetar::ledger
