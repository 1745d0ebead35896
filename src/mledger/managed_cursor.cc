#include "mledger/managed_cursor.h"

#include "meta/errc.h"
#include "mledger/errc.h"

#include <fmt/format.h>
#include <spdlog/spdlog.h>

namespace magnetar::mledger {

managed_cursor::managed_cursor(managed_ledger& ml, std::string name, durability kind, cursor_info info,
                               std::int64_t version)
    : _ml(ml),
      _name(std::move(name)),
      _kind(kind),
      _mark_delete(info.mark_delete),
      _acked(std::move(info.individually_deleted)),
      _batch_ack_sets(std::move(info.batch_ack_sets)),
      _properties(std::move(info.properties)),
      _version(version) {
  _acked.remove_up_to(_mark_delete);
  collapse();
  _batch_ack_sets.erase(_batch_ack_sets.begin(), _batch_ack_sets.upper_bound(_mark_delete));
  rewind();
}

void managed_cursor::changed() {
  if (is_durable()) _dirty = true;
  _ml.on_mark_delete_moved();
}

void managed_cursor::collapse() {
  for (;;) {
    const auto next = _ml.next_valid_position(_mark_delete);
    auto range = _acked.range_containing(next);
    if (!range) break;
    _mark_delete = range->last;
    _acked.remove_up_to(_mark_delete);
  }
}

awaitable<result<std::vector<entry>>> managed_cursor::read_entries(std::size_t max_entries, std::size_t max_bytes) {
  std::vector<entry> out;
  std::size_t bytes = 0;
  while (out.size() < max_entries && bytes < max_bytes) {
    // Skip what is acknowledged already (after a rewind or reset).
    auto from = _ml.normalize(_read);
    while (auto range = _acked.range_containing(from)) from = _ml.next_valid_position(range->last);
    _read = from;
    MAGNETAR_CO_TRY(got, co_await _ml.read_entries_for(from, max_entries - out.size(),
                                                       out.empty() ? max_bytes : max_bytes - bytes, this));
    if (got.empty()) break;
    _read = _ml.next_valid_position(got.back().pos);
    for (auto& e : got) {
      if (_acked.contains(e.pos)) continue;
      bytes += e.data.size();
      out.push_back(std::move(e));
    }
  }
  co_return out;
}

bool managed_cursor::has_more_entries() const {
  auto from = _ml.normalize(_read);
  while (auto range = _acked.range_containing(from)) from = _ml.next_valid_position(range->last);
  return from <= _ml.last_confirmed();
}

awaitable<result<void>> managed_cursor::wait_for_entries() {
  while (!has_more_entries()) {
    MAGNETAR_CO_TRY(co_await _ml.wait_for_entries_after(_ml.last_confirmed()));
  }
  co_return success();
}

result<void> managed_cursor::mark_delete(position p) {
  if (p > _ml.last_confirmed()) {
    return fail(errc::invalid_position,
                fmt::format("cursor {}: mark-delete at {} past the last entry {}", _name, p, _ml.last_confirmed()));
  }
  if (p <= _mark_delete) return success();
  _mark_delete = p;
  _acked.remove_up_to(p);
  collapse();
  _batch_ack_sets.erase(_batch_ack_sets.begin(), _batch_ack_sets.upper_bound(_mark_delete));
  if (_read <= _mark_delete) _read = _ml.next_valid_position(_mark_delete);
  changed();
  return success();
}

result<void> managed_cursor::delete_entry(position p) {
  if (p > _ml.last_confirmed() || p.ledger().value() < 0 || p.entry().value() < 0) {
    return fail(errc::invalid_position,
                fmt::format("cursor {}: ack of {} (last entry {})", _name, p, _ml.last_confirmed()));
  }
  if (p <= _mark_delete || !_acked.add(p)) return success();
  _batch_ack_sets.erase(p);
  collapse();
  _batch_ack_sets.erase(_batch_ack_sets.begin(), _batch_ack_sets.upper_bound(_mark_delete));
  if (_read <= _mark_delete) _read = _ml.next_valid_position(_mark_delete);
  changed();
  return success();
}

void managed_cursor::set_batch_ack_set(position p, std::vector<std::int64_t> unacked) {
  if (p <= _mark_delete || _acked.contains(p)) return;
  _batch_ack_sets[p] = std::move(unacked);
  if (is_durable()) _dirty = true;
}

const std::vector<std::int64_t>* managed_cursor::batch_ack_set(position p) const {
  auto it = _batch_ack_sets.find(p);
  return it == _batch_ack_sets.end() ? nullptr : &it->second;
}

void managed_cursor::rewind() { _read = _ml.next_valid_position(_mark_delete); }

awaitable<result<void>> managed_cursor::reset(position p) {
  if (p == position::latest()) p = _ml.next_valid_position(_ml.last_confirmed());
  p = _ml.normalize(p);
  _acked.clear();
  _batch_ack_sets.clear();
  _mark_delete = position(p.ledger(), entry_id(p.entry().value() - 1));
  _read = p;
  changed();
  if (is_durable()) co_return co_await persist();
  co_return success();
}

std::uint64_t managed_cursor::backlog() const {
  const auto unacked = _ml.entries_between(_mark_delete, _ml.last_confirmed());
  return unacked > _acked.size() ? unacked - _acked.size() : 0;
}

void managed_cursor::set_property(std::string key, std::string value) {
  _properties[std::move(key)] = std::move(value);
  if (is_durable()) _dirty = true;
}

void managed_cursor::set_properties(std::map<std::string, std::string> properties) {
  _properties = std::move(properties);
  if (is_durable()) _dirty = true;
}

awaitable<result<void>> managed_cursor::persist() {
  if (!is_durable()) co_return success();
  auto guard = co_await _persist_lock.acquire();
  if (!_dirty) co_return success();
  _dirty = false;
  cursor_info info{_mark_delete, _acked, 0, _properties, _batch_ack_sets};
  auto put = co_await _ml._store.put(cursor_path(_ml.name(), _name), to_json(info, _ml.config().max_ranges_to_persist),
                                     _version);
  if (!put) {
    _dirty = true;
    if (put.error() == meta::errc::bad_version) {
      co_return fail(errc::fenced, fmt::format("managed ledger {} cursor {}: changed by another owner: {}", _ml.name(),
                                               _name, put.error().message()));
    }
    co_return fail(std::move(put).error());
  }
  _version = put.value().version;
  ++_persists;
  co_return success();
}

cursor_stats managed_cursor::stats() const {
  return {_name, is_durable(), _read, _mark_delete, backlog(), _acked.range_count(), _persists};
}

}  // namespace magnetar::mledger
