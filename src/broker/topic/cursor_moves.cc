#include "broker/topic/cursor_moves.h"

#include "broker/topic/subscription.h"
#include "broker/topic/topic.h"

namespace magnetar::broker {

namespace {

// Entries of each ledger as readers see them: the current ledger's count comes from
// the last confirmed entry (its ledger_info is only final once it is closed).
std::uint64_t entries_of(const mledger::managed_ledger& ml, const mledger::ledger_info& l) {
  const auto last = ml.last_confirmed();
  if (l.id == last.ledger()) return static_cast<std::uint64_t>(last.entry().value() + 1);
  if (l.id == ml.current_ledger()) return 0;
  return l.entries;
}

}  // namespace

mledger::position entry_before(const mledger::managed_ledger& ml, mledger::position p) {
  mledger::position before = mledger::position::earliest();
  for (const auto& l : ml.ledgers()) {
    const auto n = entries_of(ml, l);
    if (n == 0) continue;
    if (l.id > p.ledger()) break;
    if (l.id < p.ledger()) {
      before = {l.id, entry_id(static_cast<std::int64_t>(n) - 1)};
      continue;
    }
    const auto e = std::min<std::int64_t>(p.entry().value(), static_cast<std::int64_t>(n));
    if (e > 0) before = {l.id, entry_id(e - 1)};
    break;
  }
  return before;
}

mledger::position entry_after(const mledger::managed_ledger& ml, mledger::position from, std::uint64_t n) {
  const auto last = ml.last_confirmed();
  for (const auto& l : ml.ledgers()) {
    const auto count = entries_of(ml, l);
    if (count == 0 || l.id < from.ledger()) continue;
    // Entries of this ledger after `from`.
    const std::int64_t first = l.id == from.ledger() ? from.entry().value() + 1 : 0;
    const std::int64_t available = static_cast<std::int64_t>(count) - first;
    if (available <= 0) continue;
    if (n <= static_cast<std::uint64_t>(available)) return {l.id, entry_id(first + static_cast<std::int64_t>(n) - 1)};
    n -= static_cast<std::uint64_t>(available);
  }
  return last;
}

std::vector<mledger::managed_cursor*> subscription_cursors(const mledger::managed_ledger& ml) {
  auto all = ml.cursors();
  std::erase_if(all, [](const auto* c) { return c->name() == dedup_cursor_name; });
  return all;
}

result<void> acknowledge_upto(topic& t, mledger::managed_cursor& cursor, mledger::position p) {
  if (auto s = t.find_subscription(cursor.name())) return s->expire_upto(p);
  return cursor.mark_delete(p);
}

}  // namespace magnetar::broker
