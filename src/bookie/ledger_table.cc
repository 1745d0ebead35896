#include "bookie/ledger_table.h"

#include "bookie/errc.h"

#include <fmt/format.h>

#include <algorithm>

namespace magnetar::bookie {

void ledger_table::load(ledger_id ledger, const stored_ledger_state& state) {
  std::lock_guard lock(_mutex);
  _ledgers[ledger] = record{.stored = state, .last_at_open = std::nullopt};
}

void ledger_table::set_last_at_open(ledger_id ledger, entry_id last) {
  std::lock_guard lock(_mutex);
  if (const auto it = _ledgers.find(ledger); it != _ledgers.end()) it->second.last_at_open = last;
}

std::optional<ledger_view> ledger_table::find(ledger_id ledger) const {
  std::lock_guard lock(_mutex);
  const auto it = _ledgers.find(ledger);
  if (it == _ledgers.end()) return std::nullopt;
  const auto& r = it->second;
  return ledger_view{.fenced = r.stored.fenced,
                     .deleted = r.stored.deleted,
                     .last_add_confirmed = r.stored.last_add_confirmed,
                     .last_added = r.last_added,
                     .last_at_open = r.last_at_open};
}

bool ledger_table::is_deleted(ledger_id ledger) const {
  std::lock_guard lock(_mutex);
  const auto it = _ledgers.find(ledger);
  return it != _ledgers.end() && it->second.stored.deleted;
}

std::unordered_set<ledger_id> ledger_table::deleted() const {
  std::lock_guard lock(_mutex);
  std::unordered_set<ledger_id> out;
  for (const auto& [ledger, r] : _ledgers) {
    if (r.stored.deleted) out.insert(ledger);
  }
  return out;
}

result<void> ledger_table::prepare_add(ledger_id ledger) {
  std::lock_guard lock(_mutex);
  const auto [it, created] = _ledgers.try_emplace(ledger);
  if (created) _dirty.insert(ledger);
  if (it->second.stored.deleted) {
    return fail(errc::ledger_deleted, fmt::format("add to ledger {}: the ledger was deleted", ledger));
  }
  return success();
}

void ledger_table::record_add(ledger_id ledger, entry_id entry, entry_id last_add_confirmed) {
  std::lock_guard lock(_mutex);
  const auto it = _ledgers.find(ledger);
  if (it == _ledgers.end() || it->second.stored.deleted) return;
  auto& r = it->second;
  r.last_added = std::max(r.last_added, entry);
  if (last_add_confirmed > r.stored.last_add_confirmed) {
    r.stored.last_add_confirmed = last_add_confirmed;
    _dirty.insert(ledger);
  }
}

result<void> ledger_table::fence(ledger_id ledger) {
  std::lock_guard lock(_mutex);
  auto& r = _ledgers[ledger];
  if (r.stored.deleted) return fail(errc::ledger_deleted, fmt::format("fence ledger {}: it was deleted", ledger));
  if (!r.stored.fenced) {
    r.stored.fenced = true;
    _dirty.insert(ledger);
  }
  return success();
}

stored_ledger_state ledger_table::tombstone(ledger_id ledger) const {
  std::lock_guard lock(_mutex);
  const auto it = _ledgers.find(ledger);
  stored_ledger_state state = it == _ledgers.end() ? stored_ledger_state{} : it->second.stored;
  state.deleted = true;
  return state;
}

void ledger_table::mark_deleted(ledger_id ledger) {
  std::lock_guard lock(_mutex);
  _ledgers[ledger].stored.deleted = true;
  _dirty.erase(ledger);
}

std::vector<std::pair<ledger_id, stored_ledger_state>> ledger_table::take_dirty() {
  std::lock_guard lock(_mutex);
  std::vector<std::pair<ledger_id, stored_ledger_state>> out;
  out.reserve(_dirty.size());
  for (const auto ledger : _dirty) out.emplace_back(ledger, _ledgers.at(ledger).stored);
  _dirty.clear();
  return out;
}

void ledger_table::mark_dirty(const std::vector<std::pair<ledger_id, stored_ledger_state>>& states) {
  std::lock_guard lock(_mutex);
  for (const auto& [ledger, state] : states) {
    if (!_ledgers.at(ledger).stored.deleted) _dirty.insert(ledger);
  }
}

}  // namespace magnetar::bookie
