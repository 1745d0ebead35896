// Adds, rollover and recovery from a failed ledger writer.
//
// Every add joins _pending in call order. It is sent at once when the current ledger
// takes adds, else it waits there and the rollover that is under way sends it to the next
// ledger. The ledger writer completes adds in entry order, so completions pop _pending
// from the front. A writer that fails fails every add after the first failed one: those
// become queued again and go, in order, to the ledger the rollover creates.
#include "mledger/managed_ledger.h"

#include "io/await_callback.h"
#include "io/run_on.h"
#include "ledger/errc.h"
#include "mledger/errc.h"
#include "mledger/managed_cursor.h"

#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include <algorithm>
#include <chrono>

namespace magnetar::mledger {

struct managed_ledger::pending_add {
  pending_add(wire::shared_bytes d, base::clock::time_point t, add_done callback)
      : data(std::move(d)), started(t), done(std::move(callback)) {}
  wire::shared_bytes data;
  base::clock::time_point started;
  base::clock::time_point sent_at;  // to the ledger, the last time
  bool sent = false;                // to the current writer, and not failed
  add_done done;
};

awaitable<result<position>> managed_ledger::add_entry(wire::shared_bytes data) {
  auto start = [&](add_done done) { start_add_entry(std::move(data), std::move(done)); };
  co_return co_await io::await_callback<result<position>>(start);
}

void managed_ledger::start_add_entry(wire::shared_bytes data, add_done done) {
  if (_state != state::open || _terminating) {
    error refused(errc::terminated, fmt::format("add to {}: it is terminated", _name));
    if (_state != state::open) {
      refused = error(_state == state::fenced ? errc::fenced : errc::closed, fmt::format("add to {}", _name));
    }
    asio::post(_executor, [done = std::move(done), refused = std::move(refused)] { done(fail(refused)); });
    return;
  }
  auto op = std::make_shared<pending_add>(std::move(data), _clock.now(), std::move(done));
  _pending.push_back(op);
  if (!_rolling) {
    if (_writer && !current_ledger_full()) {
      send(op);
    } else {
      start_rollover();
    }
  }
}

bool managed_ledger::current_ledger_full() const {
  if (_sent_entries < _config.max_entries_per_ledger && _sent_bytes < _config.max_size_per_ledger_bytes) return false;
  return _clock.now() - _writer_created >= _config.minimum_rollover_time;
}

void managed_ledger::send(const std::shared_ptr<pending_add>& op) {
  op->sent = true;
  op->sent_at = _clock.now();
  ++_sent_entries;
  _sent_bytes += op->data.size();
  ++_adds_in_flight;
  // The writer takes the entry's id now: adds go to the ledger in the order sent.
  auto writer = _writer;
  writer->start_add(op->data, _executor, [this, op, writer](result<entry_id> added) {
    on_add_done(op, writer->id(), std::move(added));
    if (--_adds_in_flight == 0 && _adds_drained) std::exchange(_adds_drained, nullptr)->fire();
  });
  if (current_ledger_full()) start_rollover();
}

void managed_ledger::send_queued() {
  for (std::size_t i = 0; i < _pending.size(); ++i) {
    if (_pending[i]->sent) continue;
    if (!_writer || current_ledger_full()) {
      start_rollover();
      return;
    }
    send(_pending[i]);
  }
}

void managed_ledger::complete(const std::shared_ptr<pending_add>& op, result<position> outcome) {
  auto it = std::find(_pending.begin(), _pending.end(), op);
  MAGNETAR_ASSERT(it != _pending.end(), "managed ledger {}: completing an add that is not pending", _name);
  _pending.erase(it);
  if (outcome) {
    ++_counters.adds_succeeded;
    _counters.bytes_added += op->data.size();
    const auto now = _clock.now();
    const auto us =
        std::max<std::int64_t>(std::chrono::duration_cast<std::chrono::microseconds>(now - op->started).count(), 0);
    _write_stats.add_latency_us.record(us);
    _write_stats.ledger_add_latency_us.record(
        std::max<std::int64_t>(std::chrono::duration_cast<std::chrono::microseconds>(now - op->sent_at).count(), 0));
    _write_stats.entry_size.record(static_cast<std::int64_t>(op->data.size()));
  } else {
    ++_counters.adds_failed;
  }
  if (_pending.empty() && _pending_empty) std::exchange(_pending_empty, nullptr)->fire();
  // Last: the callback may add again.
  std::exchange(op->done, nullptr)(std::move(outcome));
}

void managed_ledger::on_add_done(const std::shared_ptr<pending_add>& op, ledger_id ledger, result<entry_id> added) {
  if (!added) {
    op->sent = false;
    if (_state == state::fenced) {
      complete(op, fail(errc::fenced, fmt::format("managed ledger {} is fenced", _name)));
    } else if (added.error() == ledger::errc::ledger_fenced) {
      // Another client recovered our ledger: it owns the managed ledger now.
      // Fails this add too: it is unsent now.
      enter_fenced(error(errc::fenced, fmt::format("managed ledger {}: {}", _name, added.error().message())));
    } else if (!_rolling) {
      spdlog::warn("managed ledger {}: ledger {} failed ({}); re-sending to a new ledger", _name, ledger,
                   added.error());
      if (const auto it = _ledger_list.find(ledger); it != _ledger_list.end() && it->second.entries == 0) {
        ++_barren_ledgers;
      }
      start_rollover();
    }
    return;
  }
  MAGNETAR_ASSERT(!_pending.empty() && _pending.front() == op, "managed ledger {}: adds completed out of order", _name);
  _barren_ledgers = 0;
  const position pos(ledger, added.value());
  auto& info = _ledger_list[ledger];
  info.entries = static_cast<std::uint64_t>(added.value().value() + 1);
  info.size += op->data.size();
  _cache.insert(pos, op->data, cursors_behind(pos, nullptr));
  complete(op, pos);
  wake_entry_waiters();
}

void managed_ledger::start_rollover() {
  if (_rolling || _state == state::fenced || _state == state::closed || _terminated_at) return;
  auto pass = _gate.enter();
  if (!pass) return;  // stopping: abandon() fails what is queued
  _rolling = true;
  auto held = std::make_shared<io::gate::pass>(std::move(pass).value());
  io::spawn(_executor, [this, held] { return rollover(held); });
}

awaitable<void> managed_ledger::rollover(std::shared_ptr<io::gate::pass> held) {
  (void)held;  // holds the gate open while this runs
  // Before the metadata lock: cursors and trims go on meanwhile; adds queue (_rolling).
  if (const auto delay = retry_delay(); delay > base::clock::duration::zero() && _retry_timer) {
    spdlog::warn("managed ledger {}: {} ledgers in a row failed before taking an entry; the next in {} ms", _name,
                 _barren_ledgers, std::chrono::duration_cast<std::chrono::milliseconds>(delay).count());
    ++_counters.delayed_rollovers;
    const bool waited = co_await _retry_timer->wait_for(delay);
    (void)waited;  // false when stopping, which the code below checks
  }
  auto guard = co_await _metadata_lock.acquire();
  co_await wait_adds_drained();
  if (_writer) {
    auto closed = co_await close_current_ledger();
    if (!closed) {
      _rolling = false;
      enter_fenced(closed.error());
      co_return;
    }
  }
  if (_stopping) {
    _rolling = false;
    co_return;
  }
  auto created = co_await create_ledger();
  if (!created) {
    _rolling = false;
    if (created.error() == errc::fenced) {
      enter_fenced(created.error());
    } else {
      spdlog::warn("managed ledger {}: creating a ledger: {}", _name, created.error());
      fail_pending(error(errc::no_ledger, fmt::format("managed ledger {}: {}", _name, created.error().message())));
    }
    co_return;
  }
  ++_counters.rollovers;
  _rolling = false;
  send_queued();
}

base::clock::duration managed_ledger::retry_delay() const {
  // The first barren ledger is retried at once (a bookie that just went away is replaced
  // by the next ensemble); then 100 ms, doubling up to 5 s.
  if (_barren_ledgers < 2) return base::clock::duration::zero();
  const auto doublings = std::min(_barren_ledgers - 2, 6u);
  return std::min<base::clock::duration>(std::chrono::milliseconds(100) * (1u << doublings), std::chrono::seconds(5));
}

awaitable<result<void>> managed_ledger::close_current_ledger() {
  _previous_writer = std::exchange(_writer, nullptr);
  const auto id = _previous_writer->id();
  auto closed = co_await _previous_writer->close();
  if (!closed) {
    if (closed.error() == ledger::errc::ledger_fenced) {
      co_return fail(errc::fenced,
                     fmt::format("managed ledger {}: closing ledger {}: {}", _name, id, closed.error().message()));
    }
    // Its metadata still says open; a reader recovers it. Our counts are the confirmed adds.
    spdlog::warn("managed ledger {}: closing ledger {}: {}", _name, id, closed.error());
  }
  auto& info = _ledger_list[id];
  info.timestamp_ms =
      std::chrono::duration_cast<std::chrono::milliseconds>(_clock.wall_now().time_since_epoch()).count();
  if (info.entries == 0 && _ledger_list.size() > 1) {
    // Nothing was confirmed in it: leave it out of the chain (its metadata is dropped
    // with the next metadata update; the ledger itself is deleted now).
    _ledger_list.erase(id);
    auto removed = co_await _ledgers.remove(id);
    if (!removed) {
      spdlog::warn("managed ledger {}: deleting empty ledger {}: {}", _name, id, removed.error());
    }
  }
  co_return success();
}

awaitable<result<void>> managed_ledger::create_ledger() {
  auto writer = co_await _ledgers.create(ledger_config());
  if (!writer) co_return fail(std::move(writer).error());
  const auto id = writer.value()->id();
  _ledger_list[id] = ledger_info{
      id, 0, 0, std::chrono::duration_cast<std::chrono::milliseconds>(_clock.wall_now().time_since_epoch()).count()};
  auto stored = co_await store_metadata();
  if (!stored) {
    _ledger_list.erase(id);
    auto removed = co_await _ledgers.remove(id);
    if (!removed) {
      spdlog::warn("managed ledger {}: deleting unused ledger {}: {}", _name, id, removed.error());
    }
    co_return fail(std::move(stored).error());
  }
  _writer = std::move(writer).value();
  _writer_created = _clock.now();
  _sent_entries = 0;
  _sent_bytes = 0;
  spdlog::debug("managed ledger {}: writing to ledger {}", _name, id);
  co_return success();
}

void managed_ledger::fail_pending(const error& e) {
  std::vector<std::shared_ptr<pending_add>> unsent;
  for (const auto& op : _pending) {
    if (!op->sent) unsent.push_back(op);
  }
  for (const auto& op : unsent) complete(op, fail(e));
}

void managed_ledger::enter_fenced(const error& e) {
  if (_state == state::fenced) return;
  spdlog::warn("managed ledger {} fenced: {}", _name, e);
  _state = state::fenced;
  fail_pending(error(errc::fenced, e.message()));
  wake_entry_waiters();
}

awaitable<void> managed_ledger::wait_adds_drained() {
  while (_adds_in_flight > 0) {
    if (!_adds_drained) _adds_drained = std::make_shared<io::oneshot_signal>(_executor);
    auto signal = _adds_drained;
    co_await signal->wait();
  }
}

awaitable<result<void>> managed_ledger::wait_for_entries_after(position after) {
  for (;;) {
    if (_state == state::closed || _state == state::fenced) {
      co_return fail(_state == state::fenced ? errc::fenced : errc::closed, fmt::format("managed ledger {}", _name));
    }
    if (normalize(after.next_in_ledger()) <= last_confirmed()) co_return success();
    auto signal = std::make_shared<io::oneshot_signal>(_executor);
    _entry_waiters.push_back(signal);
    co_await signal->wait();
  }
}

void managed_ledger::wake_entry_waiters() {
  for (auto& w : std::exchange(_entry_waiters, {})) w->fire();
}

}  // namespace magnetar::mledger
