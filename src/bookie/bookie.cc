#include "bookie/bookie.h"

#include "bookie/errc.h"
#include "io/block_on.h"
#include "io/run_on.h"

#include <fmt/format.h>
#include <spdlog/spdlog.h>

namespace magnetar::bookie {

bookie::bookie(const bookie_options& options, io::shard_set& shards, io::blocking_pool& pool, base::clock& clock)
    : _options(options), _shards(shards), _pool(pool), _clock(clock) {}

bookie::~bookie() {
  if (_started && !_stopped) {
    // Destroyed without stop(), as a test does to play a crash: end the
    // checkpoint loop and wait for operations in flight, but flush nothing.
    io::block_on(_shards[0], [this]() -> awaitable<void> {
      _stopping.store(true);
      if (_checkpoint_timer) _checkpoint_timer->cancel();
      if (!_gate.is_closed()) co_await _gate.close();
    }());
  }
  for (auto& j : _journals) j->stop();
}

result<std::unique_ptr<bookie>> bookie::open(const bookie_options& options, io::shard_set& shards,
                                             io::blocking_pool& pool, base::clock& clock) {
  if (options.journal_directories.empty()) {
    return fail(base::errc::invalid_argument, "a bookie needs at least one journal directory");
  }
  std::unique_ptr<bookie> b(new bookie(options, shards, pool, clock));
  auto storage_options = options.storage;
  storage_options.directory = options.ledger_directory;
  storage_options.fs = options.fs;
  MAGNETAR_TRY(storage, ledger_storage::open(storage_options));
  b->_storage = std::move(storage);
  for (const auto& directory : options.journal_directories) {
    auto journal_options = options.journal;
    journal_options.directory = directory;
    journal_options.fs = options.fs;
    MAGNETAR_TRY(j, journal::open(journal_options));
    b->_journals.push_back(std::move(j));
  }
  MAGNETAR_TRY(b->replay());
  return b;
}

result<void> bookie::replay() {
  // Entries added after the last checkpoint are in the journals only; put
  // them back into storage (re-adding a flushed entry is harmless).
  for (auto& j : _journals) {
    MAGNETAR_TRY(scan, j->replay([&](const journal_record& r) -> result<void> {
      ++_replayed;
      // A ledger deleted since its records were journaled stays deleted.
      auto replayed =
          r.type == journal_record_type::fence
              ? _storage->fence(r.ledger)
              : _storage->add_entry(r.ledger, r.entry, wire::shared_bytes::copy_of(r.payload), r.last_add_confirmed);
      if (!replayed && replayed.error() == errc::ledger_deleted) return success();
      return replayed;
    }));
    spdlog::info("bookie: journal {} replayed {} records", j->directory(), scan.records);
  }
  // Everything replayed is now in storage: make it durable there and start
  // the journals afresh.
  MAGNETAR_TRY(_storage->flush());
  for (auto& j : _journals) {
    MAGNETAR_TRY(j->reclaim(j->checkpoint_mark()));
  }
  return success();
}

void bookie::start() {
  _started = true;
  _checkpoint_timer.emplace(_shards[0].executor(), _clock);
  auto pass = _gate.enter();  // held by the loop; stop() cancels the timer first
  if (!pass) return;
  io::spawn(_shards[0].executor(),
            [this, pass = std::make_shared<io::gate::pass>(std::move(pass).value())]() -> awaitable<void> {
              co_await checkpoint_loop();
            });
}

awaitable<void> bookie::checkpoint_loop() {
  while (!_stopping.load()) {
    if (!co_await _checkpoint_timer->wait_for(_options.checkpoint_interval)) co_return;  // cancelled by stop()
    if (auto done = co_await checkpoint(); !done) {
      spdlog::error("bookie: checkpoint failed: {}", done.error());
    }
  }
}

awaitable<void> bookie::stop() {
  if (_stopping.exchange(true)) co_return;
  {
    // Long polls end now, on their own shards, instead of holding the stop.
    std::lock_guard lock(_lac_waiters_mutex);
    for (auto& [ledger, waiter] : _lac_waiters) {
      asio::post(waiter.executor, [wake = waiter.wake] { wake->cancel(); });
    }
  }
  if (_checkpoint_timer) {
    co_await io::run_on(_shards[0], [this] { _checkpoint_timer->cancel(); });
  }
  co_await _gate.close();
  // A last checkpoint shortens the next start's replay; the journals hold
  // everything either way.
  if (auto done = co_await _pool.run([this] { return _storage->flush(); }); !done) {
    spdlog::warn("bookie: final flush failed: {}", done.error());
  }
  for (auto& j : _journals) j->stop();
  _stopped = true;
}

io::shard& bookie::owner_of(ledger_id ledger) {
  std::lock_guard lock(_owners_mutex);
  auto [at, added] = _owners.try_emplace(ledger.value(), nullptr);
  if (added) {
    auto* caller = io::shard::current();
    const bool ours = caller && caller->id() < _shards.size() && &_shards[caller->id()] == caller;
    at->second = ours ? caller : &_shards.for_key(static_cast<std::size_t>(ledger.value()));
  }
  return *at->second;
}

awaitable<result<void>> bookie::add_entry(ledger_id ledger, entry_id entry, entry_id last_add_confirmed,
                                          wire::shared_bytes payload, add_mode mode) {
  MAGNETAR_CO_TRY(pass [[maybe_unused]], _gate.enter());
  auto& owner = owner_of(ledger);
  if (owner.is_current()) co_return co_await add_on_owner(ledger, entry, last_add_confirmed, std::move(payload), mode);
  co_return co_await io::run_on(owner, [&]() -> awaitable<result<void>> {
    return add_on_owner(ledger, entry, last_add_confirmed, std::move(payload), mode);
  });
}

result<journal*> bookie::store_on_owner(ledger_id ledger, entry_id entry, entry_id lac,
                                        const wire::shared_bytes& payload, add_mode mode) {
  auto state = _storage->state(ledger);
  if (!state && state.error() != errc::ledger_not_found) return fail(std::move(state).error());
  if (state && state.value().fenced && mode != add_mode::recovery) {
    return fail(errc::ledger_fenced, fmt::format("add ledger {} entry {}: the ledger is fenced", ledger, entry));
  }
  // What the journal will refuse must not reach storage either: a failed add
  // must not become readable.
  auto& j = journal_of(ledger);
  MAGNETAR_TRY(j.check_append(payload.size()));
  MAGNETAR_TRY(_storage->add_entry(ledger, entry, payload, lac));
  request_checkpoint_if_cache_filling(payload.size());
  return &j;
}

void bookie::added(ledger_id ledger, entry_id lac) {
  _adds.fetch_add(1, std::memory_order_relaxed);
  wake_lac_waiters(ledger, lac);
}

awaitable<result<void>> bookie::add_on_owner(ledger_id ledger, entry_id entry, entry_id lac, wire::shared_bytes payload,
                                             add_mode mode) {
  // No suspension from the fence check to the journal enqueue (see header).
  MAGNETAR_CO_TRY(j, store_on_owner(ledger, entry, lac, payload, mode));
  const journal_record record{journal_record_type::add_entry, ledger, entry, lac, payload.span()};
  MAGNETAR_CO_TRY(co_await j->append(std::span(&record, 1)));
  added(ledger, lac);
  co_return success();
}

void bookie::start_add(ledger_id ledger, entry_id entry, entry_id last_add_confirmed, wire::shared_bytes payload,
                       add_mode mode, asio::any_io_executor executor, add_done done) {
  auto pass = _gate.enter();
  if (!pass) {
    asio::post(executor, [done = std::move(done), e = std::move(pass).error()] { done(fail(e)); });
    return;
  }
  auto held = std::make_shared<io::gate::pass>(std::move(pass).value());
  auto& owner = owner_of(ledger);
  if (owner.is_current()) {
    start_add_on_owner(ledger, entry, last_add_confirmed, std::move(payload), mode, std::move(executor),
                       std::move(done), std::move(held));
    return;
  }
  asio::post(owner.executor(),
             [this, ledger, entry, last_add_confirmed, payload = std::move(payload), mode,
              executor = std::move(executor), done = std::move(done), held = std::move(held)]() mutable {
               start_add_on_owner(ledger, entry, last_add_confirmed, std::move(payload), mode, std::move(executor),
                                  std::move(done), std::move(held));
             });
}

void bookie::start_add_on_owner(ledger_id ledger, entry_id entry, entry_id lac, wire::shared_bytes payload,
                                add_mode mode, asio::any_io_executor executor, add_done done,
                                std::shared_ptr<io::gate::pass> pass) {
  // No suspension from the fence check to the journal enqueue (see header).
  auto j = store_on_owner(ledger, entry, lac, payload, mode);
  if (!j) {
    asio::post(executor, [done = std::move(done), e = std::move(j).error()] { done(fail(e)); });
    return;
  }
  const journal_record record{journal_record_type::add_entry, ledger, entry, lac, payload.span()};
  // The completion runs on the caller's executor, not back on the owner: one hop, not two.
  j.value()->append(std::span(&record, 1), std::move(executor),
                    [this, ledger, lac, done = std::move(done), pass = std::move(pass)](const error* failure) {
                      if (failure) {
                        done(fail(*failure));
                        return;
                      }
                      added(ledger, lac);
                      done(success());
                    });
}

void bookie::wake_lac_waiters(ledger_id ledger, entry_id lac) {
  if (_lac_waiter_count.load(std::memory_order_relaxed) == 0) return;
  std::lock_guard lock(_lac_waiters_mutex);
  auto [first, last] = _lac_waiters.equal_range(ledger.value());
  for (auto it = first; it != last; ++it) {
    if (lac > it->second.previous) it->second.wake->cancel();
  }
}

awaitable<result<entry_id>> bookie::wait_last_add_confirmed(ledger_id ledger, entry_id previous,
                                                            std::chrono::milliseconds timeout) {
  MAGNETAR_CO_TRY(pass [[maybe_unused]], _gate.enter());
  auto& owner = owner_of(ledger);
  if (owner.is_current()) co_return co_await wait_lac_on_owner(ledger, previous, timeout);
  co_return co_await io::run_on(
      owner, [&]() -> awaitable<result<entry_id>> { return wait_lac_on_owner(ledger, previous, timeout); });
}

awaitable<result<entry_id>> bookie::wait_lac_on_owner(ledger_id ledger, entry_id previous,
                                                      std::chrono::milliseconds timeout) {
  MAGNETAR_CO_TRY(state, _storage->state(ledger));
  if (state.last_add_confirmed > previous) co_return state.last_add_confirmed;
  auto executor = co_await asio::this_coro::executor;
  auto wake = std::make_shared<asio::steady_timer>(executor, timeout);
  decltype(_lac_waiters)::iterator registered;
  {
    // Checked under the lock stop() takes after setting _stopping: a poll
    // either sees the stop or is registered before stop() cancels them all.
    std::lock_guard lock(_lac_waiters_mutex);
    if (_stopping.load()) co_return state.last_add_confirmed;
    registered = _lac_waiters.emplace(ledger.value(), lac_waiter{previous, executor, wake});
  }
  _lac_waiter_count.fetch_add(1, std::memory_order_relaxed);
  boost::system::error_code woken;
  co_await wake->async_wait(asio::redirect_error(asio::use_awaitable, woken));
  {
    std::lock_guard lock(_lac_waiters_mutex);
    _lac_waiters.erase(registered);
  }
  _lac_waiter_count.fetch_sub(1, std::memory_order_relaxed);
  MAGNETAR_CO_TRY(after, _storage->state(ledger));
  co_return after.last_add_confirmed;
}

void bookie::request_checkpoint_if_cache_filling(std::size_t added) {
  // Flush when half the write cache is used, so that adds find room in the
  // other half instead of running a flush on this shard (storage does that
  // when its cache is full).
  const auto unflushed = _unflushed_bytes.fetch_add(added, std::memory_order_relaxed) + added;
  if (unflushed < _options.storage.write_cache_bytes / 2) return;
  if (_checkpoint_requested.exchange(true, std::memory_order_acq_rel)) return;
  auto pass = _gate.enter();  // before the spawn: stop() must wait for this checkpoint
  if (!pass) return;
  io::spawn(_shards[0].executor(),
            [this, pass = std::make_shared<io::gate::pass>(std::move(pass).value())]() -> awaitable<void> {
              if (auto done = co_await checkpoint(); !done)
                spdlog::error("bookie: checkpoint failed: {}", done.error());
            });
}

awaitable<result<wire::shared_bytes>> bookie::read_entry(ledger_id ledger, entry_id entry) {
  MAGNETAR_CO_TRY(pass [[maybe_unused]], _gate.enter());
  _reads.fetch_add(1, std::memory_order_relaxed);
  co_return co_await _pool.run([&] { return _storage->read_entry(ledger, entry); });
}

awaitable<result<std::vector<wire::shared_bytes>>> bookie::read_range(ledger_id ledger, entry_id first, entry_id last) {
  MAGNETAR_CO_TRY(pass [[maybe_unused]], _gate.enter());
  auto entries = co_await _pool.run([&] { return _storage->read_range(ledger, first, last); });
  if (entries) _reads.fetch_add(entries.value().size(), std::memory_order_relaxed);
  co_return entries;
}

awaitable<result<entry_id>> bookie::read_last_add_confirmed(ledger_id ledger) {
  MAGNETAR_CO_TRY(pass [[maybe_unused]], _gate.enter());
  MAGNETAR_CO_TRY(state, co_await _pool.run([&] { return _storage->state(ledger); }));
  co_return state.last_add_confirmed;
}

awaitable<result<fence_result>> bookie::fence(ledger_id ledger) {
  MAGNETAR_CO_TRY(pass [[maybe_unused]], _gate.enter());
  auto& owner = owner_of(ledger);
  if (owner.is_current()) co_return co_await fence_on_owner(ledger);
  co_return co_await io::run_on(owner, [&]() -> awaitable<result<fence_result>> { return fence_on_owner(ledger); });
}

awaitable<result<fence_result>> bookie::fence_on_owner(ledger_id ledger) {
  MAGNETAR_CO_TRY(_storage->fence(ledger));
  MAGNETAR_CO_TRY(state, _storage->state(ledger));
  // Every add that passed its fence check is already queued in this journal,
  // so when the fence record is durable, so are they.
  const journal_record record{journal_record_type::fence, ledger, entry_id(-1), state.last_add_confirmed, {}};
  MAGNETAR_CO_TRY(co_await journal_of(ledger).append(std::span(&record, 1)));
  co_return fence_result{state.last_entry, state.last_add_confirmed};
}

awaitable<result<void>> bookie::delete_ledger(ledger_id ledger) {
  MAGNETAR_CO_TRY(pass [[maybe_unused]], _gate.enter());
  MAGNETAR_CO_TRY(co_await _pool.run([&] { return _storage->delete_ledger(ledger); }));
  std::lock_guard lock(_owners_mutex);
  _owners.erase(ledger.value());
  co_return success();
}

awaitable<result<void>> bookie::checkpoint() {
  // Checkpoints run one at a time, on shard 0: a caller that finds one
  // running waits for it and then runs its own, which covers its entries.
  co_return co_await io::run_on(_shards[0], [this]() -> awaitable<result<void>> {
    while (_running_checkpoint) {
      auto running = _running_checkpoint;
      co_await running->wait();
    }
    _running_checkpoint = std::make_shared<io::oneshot_signal>(_shards[0].executor());
    auto done = co_await checkpoint_now();
    std::exchange(_running_checkpoint, nullptr)->fire();
    co_return done;
  });
}

awaitable<result<void>> bookie::checkpoint_now() {
  // Adds from here on count toward the next checkpoint.
  _unflushed_bytes.store(0, std::memory_order_relaxed);
  _checkpoint_requested.store(false, std::memory_order_release);
  std::vector<std::uint64_t> marks;
  for (auto& j : _journals) marks.push_back(j->checkpoint_mark());
  MAGNETAR_CO_TRY(co_await _pool.run([this] { return _storage->flush(); }));
  _reclaimed_marks.resize(_journals.size());
  for (std::size_t i = 0; i < _journals.size(); ++i) {
    // Unmoved since the last reclaim: no file to retire, and no directory to list.
    if (marks[i] == _reclaimed_marks[i]) continue;
    MAGNETAR_CO_TRY(co_await _pool.run([&] { return _journals[i]->reclaim(marks[i]); }));
    _reclaimed_marks[i] = marks[i];
  }
  _checkpoints.fetch_add(1, std::memory_order_relaxed);
  co_return success();
}

bookie_stats bookie::stats() const {
  bookie_stats out{_adds.load(), _reads.load(), _checkpoints.load(), _replayed};
  for (const auto& j : _journals) {
    const auto syncs = j->sync_latency();
    out.journal_syncs += static_cast<std::uint64_t>(syncs.total_count());
    out.journal_sync_nanos += syncs.mean() * static_cast<double>(syncs.total_count());
  }
  return out;
}

}  // namespace magnetar::bookie
