// bookie: a storage node's ledger operations (BookKeeper's Bookie), embedded
// in the process that uses it or, later, behind a network server.
//
// An add is stored in ledger storage (readable at once) and journaled; it
// completes when its journal record is durable. A fence marks the ledger
// closed to adds, journals that, and answers the last entry stored, so that a
// recovering client finds every entry any writer was ever told is durable.
// A background loop checkpoints (every checkpoint_interval, and as soon as
// half the write cache is used): it flushes ledger storage and then reclaims
// the journal files whose entries the flush made durable elsewhere.
//
// Ordering: the operations on one ledger run on the shard that owns it; a call
// from elsewhere hops there first. A ledger's owner is the shard its first add or
// fence came from (where its writer lives, so that its adds need no hop: the hop
// there and back cost an entry-per-message Key_Shared run 17% of its throughput),
// or the one its id maps to for a first call from off the shards; it stays the
// owner until the ledger is deleted. On that shard, an add's
// fence check, its store and its journal enqueue happen with no suspension in
// between, so a fence can never slip between them, and both go to the same
// journal in that order.
//
// Lifecycle: open() replays the journals, start() begins checkpoints, stop()
// waits for operations in flight and ends the journals. Thread-safe.
#pragma once

#include "base/clock.h"
#include "base/ids.h"
#include "base/result.h"
#include "bookie/add_mode.h"
#include "bookie/journal.h"
#include "bookie/ledger_storage.h"
#include "io/blocking_pool.h"
#include "io/gate.h"
#include "io/oneshot_signal.h"
#include "io/shard.h"
#include "io/timer.h"
#include "wire/shared_bytes.h"

#include <atomic>
#include <chrono>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

namespace magnetar::bookie {

struct bookie_options {
  std::vector<std::string> journal_directories;  // one journal (and sync stream) each
  std::string ledger_directory;
  io::file_system* fs = &io::posix_file_system();
  journal_options journal;         // directory and fs are filled in per journal
  ledger_storage_options storage;  // directory and fs are filled in
  // Short, so that each checkpoint's flush is a small burst of writes: the journal's
  // syncs wait behind whatever the disk was given before them, and a second's worth of
  // entries written and synced at once held them for milliseconds (publish p99 at 30k
  // unbatched msg/s: 1 s 4.5-5.3 ms, 200 ms 3.2-3.3, 50 ms 2.0-2.7). A checkpoint
  // with nothing to flush or reclaim touches no file.
  std::chrono::milliseconds checkpoint_interval{50};
};

// What a fence answers: the ledger's last entry on this bookie, and the
// highest last-add-confirmed a writer reported.
struct fence_result {
  entry_id last_entry{-1};
  entry_id last_add_confirmed{-1};
};

struct bookie_stats {
  std::uint64_t adds = 0;
  std::uint64_t reads = 0;
  std::uint64_t checkpoints = 0;
  std::uint64_t replayed_records = 0;
  // The journals' fdatasyncs of record data, and their time in all (nanoseconds).
  std::uint64_t journal_syncs = 0;
  double journal_sync_nanos = 0;
};

class bookie {
 public:
  // Opens storage and journals and replays what the journals hold (blocking:
  // call at start-up, off the shards).
  // Destroying a bookie that was not stopped plays a crash: no final flush.
  // Not from shard 0's thread.
  static result<std::unique_ptr<bookie>> open(const bookie_options& options, io::shard_set& shards,
                                              io::blocking_pool& pool, base::clock& clock);
  ~bookie();

  void start();
  awaitable<void> stop();

  // Durable when it completes. ledger_fenced after a fence (unless a
  // recovery add), ledger_deleted after a delete, journal_failed or storage
  // errors otherwise.
  awaitable<result<void>> add_entry(ledger_id ledger, entry_id entry, entry_id last_add_confirmed,
                                    wire::shared_bytes payload, add_mode mode = add_mode::normal);
  // add_entry without a coroutine: `done` gets the outcome on `executor` (one thread),
  // never before this returns. The embedded bookie's writers add this way: a coroutine
  // chain per entry cost more than the add itself.
  using add_done = std::function<void(result<void>)>;
  void start_add(ledger_id ledger, entry_id entry, entry_id last_add_confirmed, wire::shared_bytes payload,
                 add_mode mode, asio::any_io_executor executor, add_done done);
  awaitable<result<wire::shared_bytes>> read_entry(ledger_id ledger, entry_id entry);
  // As ledger_storage::read_range: entries first..last up to the first unreadable one.
  awaitable<result<std::vector<wire::shared_bytes>>> read_range(ledger_id ledger, entry_id first, entry_id last);
  awaitable<result<entry_id>> read_last_add_confirmed(ledger_id ledger);
  // Long poll (BookKeeper's): completes with the ledger's LAC as soon as an
  // add carries one past `previous`, else after `timeout` with the LAC then.
  awaitable<result<entry_id>> wait_last_add_confirmed(ledger_id ledger, entry_id previous,
                                                      std::chrono::milliseconds timeout);
  awaitable<result<fence_result>> fence(ledger_id ledger);
  awaitable<result<void>> delete_ledger(ledger_id ledger);

  // Flushes storage and reclaims journal files now (the loop does it too).
  awaitable<result<void>> checkpoint();

  // The shard that owns the ledger (see Ordering), made its owner now if it has none.
  io::shard& owner_of(ledger_id ledger);
  bookie_stats stats() const;

 private:
  bookie(const bookie_options& options, io::shard_set& shards, io::blocking_pool& pool, base::clock& clock);
  journal& journal_of(ledger_id ledger) {
    return *_journals[static_cast<std::size_t>(ledger.value()) % _journals.size()];
  }
  result<void> replay();
  // An add's part on the owner shard before its journal record: the fence check and the
  // store. The journal to append its record to, next, with no suspension in between.
  result<journal*> store_on_owner(ledger_id ledger, entry_id entry, entry_id lac, const wire::shared_bytes& payload,
                                  add_mode mode);
  awaitable<result<void>> add_on_owner(ledger_id ledger, entry_id entry, entry_id lac, wire::shared_bytes payload,
                                       add_mode mode);
  void start_add_on_owner(ledger_id ledger, entry_id entry, entry_id lac, wire::shared_bytes payload, add_mode mode,
                          asio::any_io_executor executor, add_done done, std::shared_ptr<io::gate::pass> pass);
  // After an add's journal record is durable.
  void added(ledger_id ledger, entry_id lac);
  awaitable<result<fence_result>> fence_on_owner(ledger_id ledger);
  awaitable<result<entry_id>> wait_lac_on_owner(ledger_id ledger, entry_id previous, std::chrono::milliseconds timeout);
  // Wakes the long polls of the ledger that `lac` passes; on its owner shard.
  void wake_lac_waiters(ledger_id ledger, entry_id lac);
  awaitable<void> checkpoint_loop();
  awaitable<result<void>> checkpoint_now();
  void request_checkpoint_if_cache_filling(std::size_t added);

  const bookie_options _options;
  io::shard_set& _shards;
  io::blocking_pool& _pool;
  base::clock& _clock;
  std::unique_ptr<ledger_storage> _storage;
  std::vector<std::unique_ptr<journal>> _journals;
  io::gate _gate{"bookie"};
  std::optional<io::timer> _checkpoint_timer;               // on shard 0
  std::shared_ptr<io::oneshot_signal> _running_checkpoint;  // on shard 0
  std::vector<std::uint64_t> _reclaimed_marks;              // per journal, by the last checkpoint; on shard 0
  // Long polls of the LAC, each on its ledger's owner shard (where the adds
  // that wake it run); the mutex because shards share the map.
  struct lac_waiter {
    entry_id previous;
    asio::any_io_executor executor;
    std::shared_ptr<asio::steady_timer> wake;
  };
  std::mutex _lac_waiters_mutex;
  std::unordered_multimap<std::int64_t, lac_waiter> _lac_waiters;
  std::atomic<std::size_t> _lac_waiter_count{0};
  mutable std::mutex _owners_mutex;
  std::unordered_map<std::int64_t, io::shard*> _owners;  // by ledger id
  std::atomic<bool> _stopping{false};
  std::atomic<std::uint64_t> _unflushed_bytes{0};
  std::atomic<bool> _checkpoint_requested{false};
  bool _started = false;
  bool _stopped = false;
  std::atomic<std::uint64_t> _adds{0}, _reads{0}, _checkpoints{0};
  std::uint64_t _replayed = 0;
};

}  // namespace magnetar::bookie
