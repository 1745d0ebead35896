// managed_ledger: a topic's storage, a chain of ledgers that reads as one log (Pulsar's
// ManagedLedgerImpl), with cursors over it and an entry cache in front.
//
// Adds go to the current ledger, pipelined, and complete in order. When the ledger is
// full (entries, bytes) or old (maximum rollover time), and no younger than the minimum
// rollover time, it is closed and a new one created; adds that arrive meanwhile wait and
// go to the new ledger in order. When the ledger writer fails (a bookie error, or
// another client fenced the ledger), the managed ledger does the same: closes it, creates
// a new ledger and re-sends, in order, the adds the old one did not confirm (as
// upstream's ledgerClosed / createLedgerAfterClosed do). Only when the metadata store
// says another owner took over (a compare-and-set fails) does it stop: it becomes
// fenced and fails every add.
//
// Ledgers wholly behind the slowest durable cursor's mark-delete position and outside
// retention are deleted (trim), on the periodic tick and on demand; the current ledger
// never is. Positions skip across ledgers: after the last entry of a ledger comes entry 0
// of the next non-empty one.
//
// Opening loads the ledger list from the metadata store, recovers the last ledger (a
// crash leaves it open: recovery fences it and learns its last entry), drops it when
// empty, creates a new ledger for writes, and loads the durable cursors.
//
// terminate() seals it for good (upstream's asyncTerminate): adds already taken complete,
// later ones fail with errc::terminated, the last ledger is closed, and the metadata
// records the last position, so a reopen (after a restart or a crash) finds it terminated
// and creates no ledger for writes. Reads, cursors, acks and trimming go on as before.
//
// Owned by one shard: open() it from a coroutine on that shard, and call everything
// there. Not thread-safe. Entries handed out are shared_bytes and may travel anywhere.
// Before destruction, call close(), remove() or abandon(): they wait for the background
// work that holds `this`.
#pragma once

#include "base/clock.h"
#include "base/result.h"
#include "io/asio.h"
#include "io/gate.h"
#include "io/oneshot_signal.h"
#include "io/timer.h"
#include "ledger/ledger_client.h"
#include "meta/store.h"
#include "mledger/entry_cache.h"
#include "mledger/managed_ledger_config.h"
#include "mledger/metadata.h"
#include "mledger/position.h"
#include "mledger/serial_lock.h"
#include "mledger/storage_write_stats.h"
#include "wire/shared_bytes.h"

#include <cstdint>
#include <deque>
#include <functional>
#include <limits>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace magnetar::mledger {

class managed_cursor;

struct managed_ledger_deps {
  meta::store& store;
  ledger::ledger_client& ledgers;
  base::clock& clock;
};

struct entry {
  position pos;
  wire::shared_bytes data;
};

enum class initial_position { earliest, latest };
enum class durability { durable, non_durable };

// What topic stats and metrics need (pulsar_storage_size, pulsar_ml_*, ...). Counters
// only grow; the rest are current.
struct managed_ledger_stats {
  std::uint64_t entries = 0;
  std::uint64_t size_bytes = 0;
  std::size_t ledger_count = 0;
  position last_confirmed;
  std::size_t pending_adds = 0;
  std::uint64_t adds_succeeded = 0;
  std::uint64_t adds_failed = 0;
  std::uint64_t bytes_added = 0;
  std::uint64_t entries_read = 0;
  std::uint64_t entries_read_from_storage = 0;
  // Reads that waited for another cursor's storage read of the same entries instead of
  // reading them again (upstream's pending reads).
  std::uint64_t reads_joined = 0;
  std::uint64_t bytes_read = 0;
  std::uint64_t rollovers = 0;
  // Rollovers that waited before creating a ledger, after ledgers that failed before
  // taking any entry (bookies refusing writes).
  std::uint64_t delayed_rollovers = 0;
  std::uint64_t ledgers_trimmed = 0;
  entry_cache_stats cache;
};

class managed_ledger {
 public:
  // Creates the managed ledger or loads it. Runs on, and binds the managed ledger to,
  // the calling coroutine's executor.
  static awaitable<result<std::unique_ptr<managed_ledger>>> open(std::string name, managed_ledger_config config,
                                                                 managed_ledger_deps deps);
  ~managed_ledger();
  managed_ledger(const managed_ledger&) = delete;
  managed_ledger& operator=(const managed_ledger&) = delete;

  const std::string& name() const { return _name; }
  const managed_ledger_config& config() const { return _config; }
  // Retention follows the topic's namespace policies, which change while it is open;
  // the next trim applies the new bounds.
  void set_retention(std::chrono::milliseconds time, std::int64_t size_bytes) {
    _config.retention_time = time;
    _config.retention_size_bytes = size_bytes;
  }

  // Properties kept in the managed ledger's metadata (upstream's ManagedLedger
  // properties; a topic keeps its producers' epoch there).
  const std::map<std::string, std::string>& properties() const { return _properties; }
  // Sets one and persists it; on failure it stays as it was. errc::fenced when another
  // owner took over, errc::closed once closing.
  awaitable<result<void>> set_property(std::string key, std::string value);

  // The entry's position once it, and every add before it, is durable. errc::terminated
  // once terminate() was called.
  awaitable<result<position>> add_entry(wire::shared_bytes data);
  // add_entry without a coroutine: `done` runs on the managed ledger's executor once the
  // entry is durable (or failed), never before this returns. Call on that executor. A
  // publish pays this once per entry, where the coroutine cost more than the add.
  using add_done = std::function<void(result<position>)>;
  void start_add_entry(wire::shared_bytes data, add_done done);

  // Takes no more adds: waits for those already taken, closes the current ledger and
  // persists the terminated state with the last position, which it returns (the current
  // ledger and entry -1 when the managed ledger holds no entry). Calling it again returns
  // the same position; one that failed (the metadata store) may be called again.
  // errc::fenced or errc::closed when the managed ledger can't be written any more.
  awaitable<result<position>> terminate();
  // The termination is done and persisted (also when it was found at open).
  bool is_terminated() const { return _terminated_at.has_value() && _terminated_persisted; }

  // Up to max_entries entries from the first valid position at or after `from`, stopping
  // once max_bytes are gathered (at least one entry is returned when any is there) and at
  // the last confirmed entry: an empty vector means nothing is there yet. Served from the
  // cache where it can, else from the bookies, and what was read is cached for others.
  awaitable<result<std::vector<entry>>> read_entries(position from, std::size_t max_entries,
                                                     std::size_t max_bytes = std::numeric_limits<std::size_t>::max());

  // Completes once an entry after `after` is confirmed (at once when one is), or fails
  // with errc::closed when the managed ledger closes first. What a dispatcher awaits.
  awaitable<result<void>> wait_for_entries_after(position after);

  // Opens the named cursor (loaded at open when durable and persisted), or creates it at
  // `start`. A durable cursor is persisted and holds back trimming; a non-durable one
  // lives in memory only and does neither (upstream's NonDurableCursorImpl).
  awaitable<result<managed_cursor*>> open_cursor(std::string name, initial_position start = initial_position::latest,
                                                 durability kind = durability::durable);
  managed_cursor* find_cursor(std::string_view name) const;
  std::vector<managed_cursor*> cursors() const;
  // Forgets the cursor and its persisted state; its pointer dangles afterwards.
  awaitable<result<void>> delete_cursor(std::string_view name);

  // Deletes the ledgers that every durable cursor has consumed and that retention lets
  // go. The tick does this too; exposed for a broker's admin call and for tests.
  awaitable<result<void>> trim();
  // Persists every durable cursor whose state changed since its last write.
  awaitable<result<void>> flush_cursors();

  // Refuses new adds, waits for those pending, persists the cursors and closes the
  // current ledger. Waiters of wait_for_entries_after fail with errc::closed.
  awaitable<result<void>> close();
  // Deletes the cursors, every ledger and the metadata (upstream's asyncDelete).
  awaitable<result<void>> remove();
  // Stops the background work and lets go without closing the ledger or persisting the
  // cursors: what a crash or a lost ownership leaves behind. The next owner recovers.
  awaitable<void> abandon();

  // The last entry added; (current ledger, -1) when there is none.
  position last_confirmed() const;
  // The first valid position at or after `p`: `p` itself when it holds an entry, else
  // entry 0 of the next non-empty ledger, else the position the next add will take.
  position normalize(position p) const;
  position next_valid_position(position p) const { return normalize(p.next_in_ledger()); }
  // Entries in (after, upto], both clamped to what exists.
  std::uint64_t entries_between(position after, position upto) const;

  std::vector<ledger_info> ledgers() const;
  ledger_id current_ledger() const { return _ledger_list.rbegin()->first; }
  bool is_fenced() const { return _state == state::fenced; }
  managed_ledger_stats stats() const;
  // Drops every cached entry (memory pressure; benchmarks of reads from storage).
  void clear_cache() { _cache.clear(); }
  // Running totals of the successful adds' latencies and sizes.
  const storage_write_stats& write_stats() const { return _write_stats; }

 private:
  friend class managed_cursor;
  enum class state { open, closing, closed, fenced };
  struct pending_add;

  managed_ledger(std::string name, managed_ledger_config config, managed_ledger_deps deps,
                 asio::any_io_executor executor);

  // open (managed_ledger.cc)
  awaitable<result<void>> load();
  awaitable<result<void>> load_cursors();
  awaitable<result<void>> store_metadata();
  ledger::ledger_config ledger_config() const;
  void start_background();
  awaitable<void> run_ticks(std::shared_ptr<io::gate::pass> held);
  awaitable<void> stop_background();

  // adds and rollover (managed_ledger_add.cc)
  void send(const std::shared_ptr<pending_add>& op);
  void send_queued();
  void on_add_done(const std::shared_ptr<pending_add>& op, ledger_id ledger, result<entry_id> added);
  bool current_ledger_full() const;
  void start_rollover();
  awaitable<void> rollover(std::shared_ptr<io::gate::pass> held);
  // How long a rollover waits before creating the next ledger, after barren ones.
  base::clock::duration retry_delay() const;
  awaitable<result<void>> close_current_ledger();
  awaitable<result<void>> create_ledger();
  void fail_pending(const error& e);
  void enter_fenced(const error& e);
  awaitable<void> wait_adds_drained();
  awaitable<void> wait_pending_empty();
  void complete(const std::shared_ptr<pending_add>& op, result<position> outcome);
  void wake_entry_waiters();

  // termination (managed_ledger_terminate.cc)
  awaitable<result<position>> terminate_locked();

  // reads and trimming (managed_ledger_read.cc)
  awaitable<result<std::vector<entry>>> read_entries_for(position from, std::size_t max_entries, std::size_t max_bytes,
                                                         const managed_cursor* reader);
  awaitable<result<std::vector<entry>>> read_from_ledger(position first, position last, std::size_t max_bytes,
                                                         const managed_cursor* reader);
  awaitable<result<std::shared_ptr<ledger::ledger_reader>>> reader_for(ledger_id id);
  bool reads_ahead(const managed_cursor* reader, position first, position last) const;
  awaitable<result<std::vector<wire::shared_bytes>>> read_stored(ledger_id id, entry_id from, entry_id to);
  // A storage read under way: [first, last] of one ledger. Its entries are in the cache
  // when it is done (those the cache took).
  struct storage_read {
    ledger_id ledger;
    entry_id first;
    entry_id last;
    std::shared_ptr<io::oneshot_signal> done;
  };
  const storage_read* storage_read_covering(position p) const;
  std::uint64_t entries_in(ledger_id id) const;
  std::uint32_t cursors_behind(position pos, const managed_cursor* except) const;
  awaitable<result<void>> trim_locked();
  void on_mark_delete_moved() { _trim_wanted = true; }
  awaitable<void> tick();

  const std::string _name;
  managed_ledger_config _config;
  meta::store& _store;
  ledger::ledger_client& _ledgers;
  base::clock& _clock;
  const asio::any_io_executor _executor;

  state _state = state::open;
  // Every ledger of the chain, the current (being written) last. Never empty once open.
  std::map<ledger_id, ledger_info> _ledger_list;
  std::map<std::string, std::string> _properties;
  std::int64_t _version = -1;  // of the managed ledger's node, for compare-and-set
  serial_lock _metadata_lock;

  std::shared_ptr<ledger::ledger_writer> _writer;  // null while none can take adds
  // The ledger closed by the last rollover: reads of it go here until its metadata says
  // closed for sure (a reader opened without recovery would see a lagging LAC).
  std::shared_ptr<ledger::ledger_writer> _previous_writer;
  base::clock::time_point _writer_created;
  std::uint64_t _sent_entries = 0;  // adds sent to _writer
  std::uint64_t _sent_bytes = 0;
  std::deque<std::shared_ptr<pending_add>> _pending;  // in add order: sent ones, then queued
  std::size_t _adds_in_flight = 0;
  std::shared_ptr<io::oneshot_signal> _adds_drained;
  std::shared_ptr<io::oneshot_signal> _pending_empty;
  bool _rolling = false;
  // Ledgers that failed in a row before any entry was confirmed in them: the bookies take
  // no writes now, so each next ledger waits longer (retry_delay) rather than churning
  // the metadata store with a ledger every few milliseconds.
  unsigned _barren_ledgers = 0;
  // terminate() began: adds are refused from then on.
  bool _terminating = false;
  // The last position, once the last ledger is closed for termination; every metadata
  // write carries it from then on.
  std::optional<position> _terminated_at;
  bool _terminated_persisted = false;

  std::map<ledger_id, std::shared_ptr<ledger::ledger_reader>> _readers;
  entry_cache _cache;
  std::vector<storage_read> _storage_reads;  // under way; a few at most (one per reading cursor)
  std::map<std::string, std::unique_ptr<managed_cursor>, std::less<>> _cursors;
  std::vector<std::shared_ptr<io::oneshot_signal>> _entry_waiters;

  io::gate _gate;
  std::unique_ptr<io::timer> _tick_timer;
  std::unique_ptr<io::timer> _retry_timer;  // a rollover's wait after barren ledgers
  bool _background_started = false;
  bool _stopping = false;
  bool _trim_wanted = false;

  managed_ledger_stats _counters;
  storage_write_stats _write_stats;
};

}  // namespace magnetar::mledger
