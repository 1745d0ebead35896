#include "bookie/write_cache.h"

#include <algorithm>

namespace magnetar::bookie {

bool write_cache::put(ledger_id ledger, entry_id entry, wire::shared_bytes payload) {
  std::lock_guard lock(_mutex);
  auto& entries = _ledgers[ledger];
  auto it = entries.empty() || entries.rbegin()->first < entry ? entries.end() : entries.lower_bound(entry);
  const std::uint64_t replaced = it != entries.end() && it->first == entry ? it->second.size() : 0;
  if (_bytes - replaced + payload.size() > _max_bytes) {
    if (entries.empty()) _ledgers.erase(ledger);
    return false;
  }
  _bytes = _bytes - replaced + payload.size();
  if (it != entries.end() && it->first == entry) {
    it->second = std::move(payload);
  } else {
    entries.emplace_hint(it, entry, std::move(payload));
    ++_count;
  }
  return true;
}

std::optional<wire::shared_bytes> write_cache::get(ledger_id ledger, entry_id entry) const {
  std::lock_guard lock(_mutex);
  const auto l = _ledgers.find(ledger);
  if (l == _ledgers.end()) return std::nullopt;
  const auto e = l->second.find(entry);
  if (e == l->second.end()) return std::nullopt;
  return e->second;
}

void write_cache::remove_ledger(ledger_id ledger) {
  std::lock_guard lock(_mutex);
  const auto l = _ledgers.find(ledger);
  if (l == _ledgers.end()) return;
  for (const auto& [entry, payload] : l->second) _bytes -= payload.size();
  _count -= l->second.size();
  _ledgers.erase(l);
}

std::vector<write_cache::cached_entry> write_cache::sorted_entries() const {
  std::lock_guard lock(_mutex);
  std::vector<ledger_id> ledgers;
  ledgers.reserve(_ledgers.size());
  for (const auto& [ledger, entries] : _ledgers) ledgers.push_back(ledger);
  std::sort(ledgers.begin(), ledgers.end());
  std::vector<cached_entry> out;
  out.reserve(_count);
  for (const auto ledger : ledgers) {
    for (const auto& [id, payload] : _ledgers.at(ledger)) out.push_back({ledger, id, payload});
  }
  return out;
}

std::uint64_t write_cache::bytes() const {
  std::lock_guard lock(_mutex);
  return _bytes;
}

std::size_t write_cache::count() const {
  std::lock_guard lock(_mutex);
  return _count;
}

}  // namespace magnetar::bookie
