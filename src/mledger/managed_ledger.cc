// Opening, closing and the background tick of a managed ledger; adds and rollover are in
// managed_ledger_add.cc, reads and trimming in managed_ledger_read.cc.
#include "mledger/managed_ledger.h"

#include "io/run_on.h"
#include "ledger/errc.h"
#include "meta/errc.h"
#include "mledger/entry_cache_budget.h"
#include "mledger/errc.h"
#include "mledger/managed_cursor.h"

#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include <chrono>

namespace magnetar::mledger {

managed_ledger::managed_ledger(std::string name, managed_ledger_config config, managed_ledger_deps deps,
                               asio::any_io_executor executor)
    : _name(std::move(name)),
      _config(std::move(config)),
      _store(deps.store),
      _ledgers(deps.ledgers),
      _clock(deps.clock),
      _executor(std::move(executor)),
      _cache(_config.cache, _clock),
      _gate("managed ledger " + _name) {}

managed_ledger::~managed_ledger() {
  MAGNETAR_ASSERT(!_background_started || _gate.is_closed(),
                  "managed ledger {} destroyed without close(), remove() or abandon()", _name);
}

awaitable<result<std::unique_ptr<managed_ledger>>> managed_ledger::open(std::string name, managed_ledger_config config,
                                                                        managed_ledger_deps deps) {
  if (auto valid = check_managed_ledger_name(name); !valid) co_return fail(valid.error());
  auto executor = co_await asio::this_coro::executor;
  std::unique_ptr<managed_ledger> ml(new managed_ledger(std::move(name), std::move(config), deps, executor));
  auto loaded = co_await ml->load();
  if (!loaded) co_return fail(loaded.error());
  ml->start_background();
  co_return std::move(ml);
}

ledger::ledger_config managed_ledger::ledger_config() const {
  ledger::ledger_config c;
  c.ensemble_size = _config.ensemble_size;
  c.write_quorum = _config.write_quorum;
  c.ack_quorum = _config.ack_quorum;
  c.custom["managed-ledger"] = _name;
  return c;
}

namespace {
std::int64_t wall_ms(base::clock& clock) {
  return std::chrono::duration_cast<std::chrono::milliseconds>(clock.wall_now().time_since_epoch()).count();
}
}  // namespace

awaitable<result<void>> managed_ledger::load() {
  const auto path = managed_ledger_path(_name);
  MAGNETAR_CO_TRY(node, co_await _store.get(path));
  std::vector<ledger_id> empty_ledgers;
  if (node) {
    MAGNETAR_CO_TRY(info, managed_ledger_info_from_json(node->value));
    _version = node->st.version;
    _properties = info.properties;
    for (const auto& l : info.ledgers) _ledger_list[l.id] = l;
    if (info.terminated_at) {
      _terminating = true;
      _terminated_at = info.terminated_at;
      _terminated_persisted = true;
    }
    if (!_ledger_list.empty()) {
      // The last ledger was being written when its owner stopped, maybe by a crash:
      // recovery fences it and closes it at the last entry any bookie holds.
      const auto last = _ledger_list.rbegin()->first;
      auto reader = co_await _ledgers.open(last, /*recover=*/true);
      if (!reader && reader.error() == ledger::errc::no_such_ledger) {
        _ledger_list.erase(last);
      } else if (!reader) {
        co_return fail(reader.error().code(), fmt::format("managed ledger {}: recovering ledger {}: {}", _name, last,
                                                          reader.error().message()));
      } else {
        auto& info = _ledger_list[last];
        info.entries = static_cast<std::uint64_t>(reader.value()->last_entry().value() + 1);
        info.size = reader.value()->metadata().length;
        if (!_terminated_at) info.timestamp_ms = wall_ms(_clock);
        // A terminated managed ledger keeps its last ledger even when empty: no new
        // ledger follows it, and the chain is never empty.
        if (info.entries == 0 && !_terminated_at) {
          _ledger_list.erase(last);
          empty_ledgers.push_back(last);
        } else {
          _readers[last] = std::move(reader).value();
        }
      }
    }
  } else {
    // Named, not a temporary inside the co_await: GCC 12 mis-handles such temporaries.
    const auto empty = to_json(managed_ledger_info{});
    MAGNETAR_CO_TRY(created, co_await _store.put(path, empty, -1));
    _version = created.version;
  }
  if (_terminated_at) {
    // Terminated: nothing is written any more, so no ledger is created for writes (as
    // upstream). The chain is never empty: terminate() keeps a last ledger.
    if (_ledger_list.empty()) {
      co_return fail(errc::bad_metadata, fmt::format("managed ledger {}: terminated without a ledger", _name));
    }
    co_return co_await load_cursors();
  }
  // As upstream: writes always go to a new ledger, never to one a previous owner opened.
  MAGNETAR_CO_TRY(co_await create_ledger());
  for (auto id : empty_ledgers) {
    auto removed = co_await _ledgers.remove(id);
    if (!removed) {
      spdlog::warn("managed ledger {}: deleting empty ledger {}: {}", _name, id, removed.error());
    }
  }
  auto done = co_await load_cursors();
  co_return done;
}

awaitable<result<void>> managed_ledger::load_cursors() {
  MAGNETAR_CO_TRY(names, co_await _store.children(managed_ledger_path(_name)));
  for (const auto& cursor_name : names) {
    MAGNETAR_CO_TRY(node, co_await _store.get(cursor_path(_name, cursor_name)));
    if (!node) continue;  // deleted meanwhile
    auto info = cursor_info_from_json(node->value);
    if (!info) {
      co_return fail(errc::bad_metadata,
                     fmt::format("managed ledger {} cursor {}: {}", _name, cursor_name, info.error().message()));
    }
    if (info.value().ranges_dropped > 0) {
      spdlog::info("managed ledger {} cursor {}: {} acked ranges were not persisted; their messages are redelivered",
                   _name, cursor_name, info.value().ranges_dropped);
    }
    auto c = std::unique_ptr<managed_cursor>(
        new managed_cursor(*this, cursor_name, durability::durable, std::move(info).value(), node->st.version));
    _cursors.emplace(cursor_name, std::move(c));
  }
  co_return success();
}

awaitable<result<void>> managed_ledger::set_property(std::string key, std::string value) {
  auto guard = co_await _metadata_lock.acquire();
  if (_state == state::fenced) co_return fail(errc::fenced, fmt::format("set a property of {}", _name));
  if (_state != state::open) co_return fail(errc::closed, fmt::format("set a property of {}", _name));
  auto previous = _properties;
  _properties[std::move(key)] = std::move(value);
  auto stored = co_await store_metadata();
  if (!stored) {
    _properties = std::move(previous);
    if (stored.error() == errc::fenced) enter_fenced(stored.error());
    co_return fail(std::move(stored).error());
  }
  co_return success();
}

awaitable<result<void>> managed_ledger::store_metadata() {
  managed_ledger_info info;
  for (const auto& [id, l] : _ledger_list) info.ledgers.push_back(l);
  info.properties = _properties;
  info.terminated_at = _terminated_at;
  auto put = co_await _store.put(managed_ledger_path(_name), to_json(info), _version);
  if (!put) {
    if (put.error() == meta::errc::bad_version) {
      co_return fail(errc::fenced, fmt::format("managed ledger {}: metadata changed by another owner: {}", _name,
                                               put.error().message()));
    }
    co_return fail(std::move(put).error());
  }
  _version = put.value().version;
  if (_terminated_at) _terminated_persisted = true;
  co_return success();
}

awaitable<result<managed_cursor*>> managed_ledger::open_cursor(std::string name, initial_position start,
                                                               durability kind) {
  MAGNETAR_CO_TRY(check_cursor_name(name));
  if (_state != state::open) co_return fail(errc::closed, fmt::format("managed ledger {}", _name));
  if (auto* existing = find_cursor(name)) {
    if (existing->durability_kind() != kind) {
      co_return fail(errc::cursor_exists,
                     fmt::format("managed ledger {}: cursor {} is open with the other durability", _name, name));
    }
    co_return existing;
  }
  cursor_info info;
  info.mark_delete =
      start == initial_position::earliest ? position(_ledger_list.begin()->first, entry_id(-1)) : last_confirmed();
  auto c = std::unique_ptr<managed_cursor>(new managed_cursor(*this, name, kind, std::move(info), -1));
  if (kind == durability::durable) {
    c->_dirty = true;
    MAGNETAR_CO_TRY(co_await c->persist());
    if (auto* raced = find_cursor(name)) co_return raced;  // opened by another call meanwhile
  }
  auto* raw = c.get();
  _cursors.emplace(std::move(name), std::move(c));
  co_return raw;
}

managed_cursor* managed_ledger::find_cursor(std::string_view name) const {
  auto it = _cursors.find(name);
  return it == _cursors.end() ? nullptr : it->second.get();
}

std::vector<managed_cursor*> managed_ledger::cursors() const {
  std::vector<managed_cursor*> out;
  for (const auto& [name, c] : _cursors) out.push_back(c.get());
  return out;
}

awaitable<result<void>> managed_ledger::delete_cursor(std::string_view name) {
  auto it = _cursors.find(name);
  if (it == _cursors.end()) co_return fail(errc::no_such_cursor, fmt::format("{} in {}", name, _name));
  auto c = std::move(it->second);
  _cursors.erase(it);
  _trim_wanted = true;
  if (c->is_durable()) {
    // Wait for a persist in flight, so it can't re-create the node after the remove.
    auto guard = co_await c->_persist_lock.acquire();
    auto removed = co_await _store.remove(cursor_path(_name, c->name()), std::nullopt);
    if (!removed && removed.error() != meta::errc::not_found) co_return fail(std::move(removed).error());
  }
  co_return success();
}

awaitable<result<void>> managed_ledger::flush_cursors() {
  result<void> outcome = success();
  for (auto* c : cursors()) {
    if (!c->is_durable()) continue;
    auto persisted = co_await c->persist();
    if (!persisted && outcome) outcome = std::move(persisted);
  }
  co_return outcome;
}

// ---- background ------------------------------------------------------------

void managed_ledger::start_background() {
  _tick_timer = std::make_unique<io::timer>(_executor, _clock);
  _retry_timer = std::make_unique<io::timer>(_executor, _clock);
  auto pass = _gate.enter();
  MAGNETAR_ASSERT(pass.has_value(), "a new managed ledger's gate is open");
  _background_started = true;
  // The coroutine is a member function, not the lambda: its frame holds copies of its
  // arguments, so nothing depends on the lambda object's lifetime.
  auto held = std::make_shared<io::gate::pass>(std::move(pass).value());
  io::spawn(_executor, [this, held] { return run_ticks(held); });
}

awaitable<void> managed_ledger::run_ticks(std::shared_ptr<io::gate::pass> held) {
  (void)held;  // holds the gate open while this runs
  while (!_stopping) {
    // Not `if (!co_await ... || ...)`: GCC 12 mis-compiles co_await inside || (the
    // coroutine's frame gets corrupted).
    const bool reached = co_await _tick_timer->wait_for(_config.tick_interval);
    if (!reached || _stopping) break;
    co_await tick();
  }
}

awaitable<void> managed_ledger::tick() {
  _cache.evict_expired(_clock.now());
  if (_config.cache.budget) _config.cache.budget->enforce(_clock.now());
  if (_state == state::open && !_rolling && _writer && _sent_entries > 0) {
    const auto age = _clock.now() - _writer_created;
    if (age >= _config.maximum_rollover_time && age >= _config.minimum_rollover_time) start_rollover();
  }
  if (_state == state::open) {
    if (auto trimmed = co_await trim(); !trimmed) spdlog::warn("managed ledger {}: trim: {}", _name, trimmed.error());
    auto flushed = co_await flush_cursors();
    if (!flushed) {
      spdlog::warn("managed ledger {}: persisting cursors: {}", _name, flushed.error());
    }
  }
}

awaitable<void> managed_ledger::stop_background() {
  if (!_background_started || _gate.is_closed()) co_return;
  _stopping = true;
  _tick_timer->cancel();
  _retry_timer->cancel();
  co_await _gate.close();
  co_await wait_adds_drained();
}

awaitable<void> managed_ledger::wait_pending_empty() {
  while (!_pending.empty()) {
    if (!_pending_empty) _pending_empty = std::make_shared<io::oneshot_signal>(_executor);
    auto signal = _pending_empty;
    co_await signal->wait();
  }
}

// ---- close, remove, abandon ------------------------------------------------

awaitable<result<void>> managed_ledger::close() {
  if (_state == state::closed) co_return success();
  const bool fenced = _state == state::fenced;
  if (!fenced) _state = state::closing;
  co_await wait_pending_empty();
  co_await stop_background();
  result<void> outcome = success();
  if (!fenced) {
    outcome = co_await flush_cursors();
    if (_writer) {
      auto closed = co_await _writer->close();
      if (!closed && outcome) outcome = std::move(closed);
    }
  }
  _state = state::closed;
  wake_entry_waiters();
  co_return outcome;
}

awaitable<void> managed_ledger::abandon() {
  if (_state != state::fenced) _state = state::closed;
  co_await stop_background();
  fail_pending(error(errc::closed, fmt::format("managed ledger {} abandoned", _name)));
  _state = state::closed;
  wake_entry_waiters();
}

awaitable<result<void>> managed_ledger::remove() {
  auto closed = co_await close();
  if (!closed) {
    spdlog::warn("managed ledger {}: closing before delete: {}", _name, closed.error());
  }
  for (auto& [name, c] : _cursors) {
    if (!c->is_durable()) continue;
    auto removed = co_await _store.remove(cursor_path(_name, name), std::nullopt);
    if (!removed && removed.error() != meta::errc::not_found) co_return fail(std::move(removed).error());
  }
  _cursors.clear();
  for (const auto& [id, info] : _ledger_list) {
    auto removed = co_await _ledgers.remove(id);
    if (!removed && removed.error() != ledger::errc::no_such_ledger) co_return fail(std::move(removed).error());
  }
  _ledger_list.clear();
  _readers.clear();
  _cache.clear();
  auto done = co_await _store.remove_recursive(managed_ledger_path(_name));
  co_return done;
}

}  // namespace magnetar::mledger
