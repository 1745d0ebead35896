// Positions, reads and trimming of a managed ledger.
#include "mledger/managed_ledger.h"

#include "ledger/errc.h"
#include "mledger/errc.h"
#include "mledger/managed_cursor.h"

#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include <algorithm>
#include <chrono>

namespace magnetar::mledger {

std::uint64_t managed_ledger::entries_in(ledger_id id) const {
  auto it = _ledger_list.find(id);
  return it == _ledger_list.end() ? 0 : it->second.entries;
}

position managed_ledger::last_confirmed() const {
  for (auto it = _ledger_list.rbegin(); it != _ledger_list.rend(); ++it) {
    if (it->second.entries > 0) return {it->first, entry_id(static_cast<std::int64_t>(it->second.entries) - 1)};
  }
  return {current_ledger(), entry_id(-1)};
}

position managed_ledger::normalize(position p) const {
  const auto current = current_ledger();
  for (auto it = _ledger_list.lower_bound(p.ledger()); it != _ledger_list.end(); ++it) {
    const auto& [id, info] = *it;
    // The current ledger is open-ended: past its last entry lies the next add.
    const bool open_ended = id == current;
    if (id == p.ledger()) {
      const auto e = std::max<std::int64_t>(p.entry().value(), 0);
      if (static_cast<std::uint64_t>(e) < info.entries || open_ended) return {id, entry_id(e)};
    } else if (info.entries > 0 || open_ended) {
      return {id, entry_id(0)};
    }
  }
  return {current, entry_id(static_cast<std::int64_t>(entries_in(current)))};
}

std::uint64_t managed_ledger::entries_between(position after, position upto) const {
  std::uint64_t count = 0;
  for (auto it = _ledger_list.lower_bound(after.ledger()); it != _ledger_list.end() && it->first <= upto.ledger();
       ++it) {
    const auto& [id, info] = *it;
    const std::int64_t first = id == after.ledger() ? after.entry().value() + 1 : 0;
    std::int64_t last = static_cast<std::int64_t>(info.entries) - 1;
    if (id == upto.ledger()) last = std::min(last, upto.entry().value());
    if (last >= first) count += static_cast<std::uint64_t>(last - first + 1);
  }
  return count;
}

std::uint32_t managed_ledger::cursors_behind(position pos, const managed_cursor* except) const {
  std::uint32_t behind = 0;
  for (const auto& [name, c] : _cursors) {
    if (c.get() != except && c->read_position() <= pos) ++behind;
  }
  return behind;
}

awaitable<result<std::vector<entry>>> managed_ledger::read_entries(position from, std::size_t max_entries,
                                                                   std::size_t max_bytes) {
  auto done = co_await read_entries_for(from, max_entries, max_bytes, nullptr);
  co_return done;
}

awaitable<result<std::vector<entry>>> managed_ledger::read_entries_for(position from, std::size_t max_entries,
                                                                       std::size_t max_bytes,
                                                                       const managed_cursor* reader) {
  std::vector<entry> out;
  if (_state == state::closed) co_return fail(errc::closed, fmt::format("read from {}", _name));
  std::size_t bytes = 0;
  auto p = normalize(from);
  while (out.size() < max_entries && bytes < max_bytes && p <= last_confirmed()) {
    const auto in_ledger = static_cast<std::int64_t>(entries_in(p.ledger())) - p.entry().value();
    const auto count = std::min<std::int64_t>(in_ledger, static_cast<std::int64_t>(max_entries - out.size()));
    if (count <= 0) break;
    const position last(p.ledger(), entry_id(p.entry().value() + count - 1));
    MAGNETAR_CO_TRY(got, co_await read_from_ledger(p, last, out.empty() ? max_bytes : max_bytes - bytes, reader));
    if (got.empty()) break;
    for (auto& e : got) {
      bytes += e.data.size();
      out.push_back(std::move(e));
    }
    if (out.back().pos < last) break;  // the byte budget stopped it
    p = next_valid_position(out.back().pos);
  }
  _counters.entries_read += out.size();
  _counters.bytes_read += bytes;
  co_return out;
}

const managed_ledger::storage_read* managed_ledger::storage_read_covering(position p) const {
  for (const auto& r : _storage_reads) {
    if (r.ledger == p.ledger() && r.first <= p.entry() && p.entry() <= r.last) return &r;
  }
  return nullptr;
}

awaitable<result<std::vector<entry>>> managed_ledger::read_from_ledger(position first, position last,
                                                                       std::size_t budget,
                                                                       const managed_cursor* reader) {
  // Cursors that catch up together ask for the same entries at about the same time: one
  // that finds another's storage read of them under way waits for it and takes them
  // from the cache, rather than reading them from storage again.
  if (const auto* under_way = storage_read_covering(first)) {
    auto done = under_way->done;
    ++_counters.reads_joined;
    co_await done->wait();
  }
  std::vector<entry> out;
  std::size_t bytes = 0;
  // Within the budget, but at least one entry.
  auto take = [&](position pos, wire::shared_bytes data) {
    if (!out.empty() && bytes + data.size() > budget) return false;
    bytes += data.size();
    out.push_back({pos, std::move(data)});
    return true;
  };
  for (auto& c : _cache.get_range(first, last)) {
    if (!take(c.pos, std::move(c.data))) co_return out;
  }
  if (!out.empty() && out.back().pos == last) co_return out;
  if (!out.empty() && bytes >= budget) co_return out;

  const auto from = out.empty() ? first : out.back().pos.next_in_ledger();
  auto count = last.entry().value() - from.entry().value() + 1;
  std::int64_t ahead = 0;
  // Read about as much as the budget takes, judged by the ledger's mean entry size.
  if (auto it = _ledger_list.find(first.ledger());
      it != _ledger_list.end() && it->second.entries > 0 && it->second.size > 0) {
    const auto mean = std::max<std::uint64_t>(it->second.size / it->second.entries, 1);
    const auto left = budget > bytes ? budget - bytes : 0;
    const auto fit = std::max<std::uint64_t>(left / mean, 1);
    if (fit < static_cast<std::uint64_t>(count)) count = static_cast<std::int64_t>(fit);
    // And read ahead, into the cache, what this cursor will ask for next: a storage read
    // costs a hop to the bookie (a thread wake-up each way here, a round trip over the
    // network), whatever it reads; 100 entries of 1 KiB a hop ran at 0.8 GB/s.
    if (reads_ahead(reader, first, last)) {
      const auto stored_after = static_cast<std::int64_t>(it->second.entries) - (from.entry().value() + count);
      // At most a quarter of the cache, so that the read-ahead doesn't push out its own start.
      const auto wanted = std::min({_config.read_ahead_bytes / mean, _config.cache.max_bytes / 4 / mean,
                                    std::uint64_t{_config.read_ahead_max_entries}});
      ahead = std::clamp<std::int64_t>(static_cast<std::int64_t>(wanted), 0, std::max<std::int64_t>(stored_after, 0));
    }
  }
  const entry_id to(from.entry().value() + count - 1);
  entry_id read_to(to.value() + ahead);
  const auto id = first.ledger();
  auto done = std::make_shared<io::oneshot_signal>(co_await asio::this_coro::executor);
  _storage_reads.push_back({id, from.entry(), read_to, done});
  auto read = co_await read_stored(id, from.entry(), read_to);
  if (!read && read_to != to) {
    // The read-ahead is a bonus: what the reader asked for may still be readable.
    read_to = to;
    read = co_await read_stored(id, from.entry(), to);
  }
  // Whatever the outcome: a waiter finds the entries in the cache or reads them itself.
  auto finish = [&] {
    std::erase_if(_storage_reads, [&](const storage_read& r) { return r.done == done; });
    done->fire();
  };
  if (!read) {
    finish();
    co_return fail(read.error().code(),
                   fmt::format("managed ledger {}: reading {}..{}: {}", _name, from, to, read.error().message()));
  }
  _counters.entries_read_from_storage += read.value().size();
  auto e = from.entry().value();
  bool budget_spent = false;
  for (auto& data : read.value()) {
    const position pos(id, entry_id(e++));
    // Every entry read goes to the cache, also past this reader's budget: a cursor that
    // joined this read takes them from there. Those read ahead await this reader too.
    const bool read_ahead = pos.entry() > to;
    _cache.insert(pos, data, cursors_behind(pos, reader) + (read_ahead && reader ? 1 : 0));
    if (!read_ahead) budget_spent = budget_spent || !take(pos, data);
  }
  finish();
  co_return out;
}

bool managed_ledger::reads_ahead(const managed_cursor* reader, position first, position last) const {
  // A cursor reading a run, not a single position (a redelivery, a probe of a seek by
  // time), from bookies that each hold every entry (otherwise the ledger client reads
  // entry by entry, and a read-ahead would be a thousand round trips).
  return reader != nullptr && last.entry() > first.entry() && _config.ensemble_size == _config.write_quorum &&
         _config.read_ahead_bytes > 0;
}

awaitable<result<std::vector<wire::shared_bytes>>> managed_ledger::read_stored(ledger_id id, entry_id from,
                                                                               entry_id to) {
  if (_writer && _writer->id() == id) {
    auto writer = _writer;  // keeps it alive across the read if a rollover drops it
    co_return co_await writer->read(from, to);
  }
  if (_previous_writer && _previous_writer->id() == id) {
    auto writer = _previous_writer;
    co_return co_await writer->read(from, to);
  }
  MAGNETAR_CO_TRY(ledger_reader, co_await reader_for(id));
  co_return co_await ledger_reader->read(from, to);
}

awaitable<result<std::shared_ptr<ledger::ledger_reader>>> managed_ledger::reader_for(ledger_id id) {
  if (auto it = _readers.find(id); it != _readers.end()) co_return it->second;
  MAGNETAR_CO_TRY(opened, co_await _ledgers.open(id, /*recover=*/false));
  std::shared_ptr<ledger::ledger_reader> reader = std::move(opened);
  _readers[id] = reader;
  co_return reader;
}

// ---- trimming --------------------------------------------------------------

awaitable<result<void>> managed_ledger::trim() {
  if (_state != state::open && _state != state::closing) co_return success();
  auto guard = co_await _metadata_lock.acquire();
  auto done = co_await trim_locked();
  co_return done;
}

awaitable<result<void>> managed_ledger::trim_locked() {
  _trim_wanted = false;
  // Ledgers before this one are consumed by every durable cursor. Without any, all but
  // the current are (as upstream: only retention keeps them).
  ledger_id first_needed = current_ledger();
  for (const auto& [name, c] : _cursors) {
    if (c->is_durable()) first_needed = std::min(first_needed, next_valid_position(c->mark_delete_position()).ledger());
  }
  std::uint64_t total_size = 0;
  for (const auto& [id, info] : _ledger_list) total_size += info.size;
  const auto now_ms =
      std::chrono::duration_cast<std::chrono::milliseconds>(_clock.wall_now().time_since_epoch()).count();
  std::vector<ledger_info> doomed;
  std::uint64_t doomed_size = 0;
  for (const auto& [id, info] : _ledger_list) {
    if (id >= first_needed || id == current_ledger()) break;
    // Kept while within both bounds of retention; the oldest go first.
    const bool expired =
        _config.retention_time.count() >= 0 && now_ms - info.timestamp_ms >= _config.retention_time.count();
    const bool over_size = _config.retention_size_bytes >= 0 &&
                           total_size - doomed_size > static_cast<std::uint64_t>(_config.retention_size_bytes);
    if (!expired && !over_size) break;
    doomed.push_back(info);
    doomed_size += info.size;
  }
  if (doomed.empty()) co_return success();
  for (const auto& info : doomed) _ledger_list.erase(info.id);
  auto stored = co_await store_metadata();
  if (!stored) {
    for (const auto& info : doomed) _ledger_list[info.id] = info;
    if (stored.error() == errc::fenced) enter_fenced(stored.error());
    co_return fail(std::move(stored).error());
  }
  for (const auto& info : doomed) {
    _readers.erase(info.id);
    _cache.invalidate_ledger(info.id);
    if (_previous_writer && _previous_writer->id() == info.id) _previous_writer.reset();
    // The metadata no longer names it: a failure here leaves garbage on the bookies, not a hole in the log.
    auto removed = co_await _ledgers.remove(info.id);
    if (!removed && removed.error() != ledger::errc::no_such_ledger) {
      spdlog::warn("managed ledger {}: deleting trimmed ledger {}: {}", _name, info.id, removed.error());
    }
  }
  _counters.ledgers_trimmed += doomed.size();
  spdlog::debug("managed ledger {}: trimmed {} ledgers", _name, doomed.size());
  co_return success();
}

// ---- stats -----------------------------------------------------------------

std::vector<ledger_info> managed_ledger::ledgers() const {
  std::vector<ledger_info> out;
  for (const auto& [id, info] : _ledger_list) out.push_back(info);
  return out;
}

managed_ledger_stats managed_ledger::stats() const {
  auto s = _counters;
  for (const auto& [id, info] : _ledger_list) {
    s.entries += info.entries;
    s.size_bytes += info.size;
  }
  s.ledger_count = _ledger_list.size();
  s.last_confirmed = last_confirmed();
  s.pending_adds = _pending.size();
  s.cache = _cache.stats();
  return s;
}

}  // namespace magnetar::mledger
