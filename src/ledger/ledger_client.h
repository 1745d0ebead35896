// ledger_client: creates, opens, recovers and deletes ledgers (BookKeeper's
// client): append-only sequences of entries stored on bookies, with their
// metadata in the metadata store.
//
// ledger_writer appends: adds are pipelined (many in flight) and complete in
// entry order once each has reached its ack quorum; the last add confirmed
// (LAC) rides on every add. ledger_reader reads a ledger; opening with
// recovery first fences the ledger on its bookies (the old writer can add no
// more), finds the last entry any bookie holds past the LAC, and closes the
// ledger there, so that no entry a writer was told is durable is left out.
//
// A bookie that fails mid-ledger is replaced (an ensemble change, see
// add_pipeline.h), and recovery re-writes each entry it finds past the LAC to
// the entry's whole write quorum before closing the ledger.
//
// Threading: ledger_client is thread-safe; a writer or reader is used from one
// shard at a time.
#pragma once

#include "base/clock.h"
#include "base/result.h"
#include "io/asio.h"
#include "ledger/add_pipeline.h"
#include "ledger/bookie_client.h"
#include "ledger/ledger_metadata.h"
#include "meta/store.h"

#include <chrono>
#include <map>
#include <memory>
#include <optional>
#include <vector>

namespace magnetar::ledger {

struct ledger_config {
  int ensemble_size = 1;
  int write_quorum = 1;
  int ack_quorum = 1;
  std::map<std::string, std::string> custom;
};

struct ledger_client_options {
  // A read that a bookie hasn't answered by then goes to the next bookie of
  // the write set too; the first answer wins (BookKeeper's
  // speculativeReadTimeout, 2000 ms there too). 0: the next only after a failure.
  std::chrono::milliseconds speculative_read_timeout{2'000};
};

class ledger_client;

class ledger_writer {
 public:
  ledger_id id() const { return metadata().id; }
  const ledger_metadata& metadata() const { return _adds->metadata(); }
  entry_id last_add_confirmed() const { return entry_id(_adds->confirmed()); }
  entry_id last_add_pushed() const { return entry_id(_adds->pushed()); }
  std::uint64_t length() const { return _length; }
  bool failed() const { return _adds->failure().has_value(); }

  // The new entry's id, once it and every entry before it are durable.
  awaitable<result<entry_id>> add(wire::shared_bytes payload);
  // add() without a coroutine (add_pipeline::start_add): `done` runs on `executor`, the
  // same for every add of this writer. The caller keeps the writer alive until then
  // (its `done` holds it).
  void start_add(wire::shared_bytes payload, asio::any_io_executor executor, add_pipeline::add_done done);
  // Waits for the adds in flight, then records the ledger closed at its LAC.
  awaitable<result<void>> close();
  // Entries [first, last], all at or below the LAC.
  awaitable<result<std::vector<wire::shared_bytes>>> read(entry_id first, entry_id last);

 private:
  friend class ledger_client;
  ledger_writer(ledger_client& client, std::shared_ptr<add_pipeline> adds) : _client(client), _adds(std::move(adds)) {}

  ledger_client& _client;
  std::shared_ptr<add_pipeline> _adds;
  std::uint64_t _length = 0;         // payload bytes confirmed
  std::uint64_t _pushed_length = 0;  // payload bytes handed to the pipeline
  bool _closed = false;
};

class ledger_reader {
 public:
  ledger_id id() const { return _metadata.id; }
  const ledger_metadata& metadata() const { return _metadata; }
  // The last entry: the closed ledger's, else the LAC known when opened.
  entry_id last_entry() const { return _last_entry; }

  awaitable<result<std::vector<wire::shared_bytes>>> read(entry_id first, entry_id last);
  // Asks the bookies again (for an open ledger whose writer goes on).
  awaitable<result<entry_id>> read_last_add_confirmed();
  // Long poll: the last entry once the writer confirms one past it, or after
  // `timeout` as it is then. Asks the bookies of the last ensemble in turn
  // until one answers.
  awaitable<result<entry_id>> wait_for_entries(std::chrono::milliseconds timeout);

 private:
  friend class ledger_client;
  ledger_reader(ledger_client& client, ledger_metadata metadata, entry_id last)
      : _client(client), _metadata(std::move(metadata)), _last_entry(last) {}

  ledger_client& _client;
  ledger_metadata _metadata;
  entry_id _last_entry;
};

class ledger_client {
 public:
  ledger_client(meta::store& store, bookie_directory& bookies, base::clock& clock, ledger_client_options options = {})
      : _store(store), _bookies(bookies), _clock(clock), _options(options) {}

  awaitable<result<std::unique_ptr<ledger_writer>>> create(ledger_config config);
  awaitable<result<std::unique_ptr<ledger_reader>>> open(ledger_id id, bool recover);
  // Removes the metadata, then asks the bookies to drop the entries.
  awaitable<result<void>> remove(ledger_id id);
  awaitable<result<std::optional<ledger_metadata>>> metadata(ledger_id id);

 private:
  friend class ledger_writer;
  friend class ledger_reader;
  awaitable<result<ledger_id>> allocate_id();
  awaitable<result<std::pair<ledger_metadata, std::int64_t>>> read_metadata(ledger_id id);
  awaitable<result<entry_id>> recover(ledger_metadata& metadata, std::int64_t& version);
  // One entry from its write set: the first bookie, then the next on failure
  // or past the speculative read timeout.
  awaitable<result<wire::shared_bytes>> read_entry(const ledger_metadata& metadata, entry_id entry);
  awaitable<result<std::vector<wire::shared_bytes>>> read_range(const ledger_metadata& metadata, entry_id first,
                                                                entry_id last);
  result<bookie_client*> client_of(const std::string& bookie_id);

  meta::store& _store;
  bookie_directory& _bookies;
  base::clock& _clock;
  const ledger_client_options _options;
};

}  // namespace magnetar::ledger
