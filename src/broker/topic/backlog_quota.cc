#include "broker/topic/backlog_quota.h"

#include "base/log.h"
#include "broker/api/errc.h"
#include "broker/topic/cursor_moves.h"
#include "broker/topic/topic.h"

#include <fmt/format.h>

namespace magnetar::broker {

namespace {

// Upstream's reduction factor: eviction aims below the quota, so that the next check
// does not evict again at once.
constexpr double eviction_target = 0.9;

std::uint64_t average_entry_size(const mledger::managed_ledger& ml) {
  const auto stats = ml.stats();
  return stats.entries == 0 ? 0 : stats.size_bytes / stats.entries;
}

mledger::managed_cursor* slowest(const mledger::managed_ledger& ml, std::uint64_t& backlog_entries) {
  mledger::managed_cursor* out = nullptr;
  backlog_entries = 0;
  const auto last = ml.last_confirmed();
  for (auto* c : subscription_cursors(ml)) {
    if (!c->is_durable()) continue;
    const auto behind = ml.entries_between(c->mark_delete_position(), last);
    if (out == nullptr || behind > backlog_entries) {
      out = c;
      backlog_entries = behind;
    }
  }
  return out;
}

bool over_quota(const topic& t) {
  const auto& p = t.policies();
  if (!p.has_size_quota()) return false;
  return estimated_backlog_bytes(t.ledger()) > static_cast<std::uint64_t>(p.storage_quota->limit_size);
}

void evict(topic& t, std::uint64_t limit) {
  auto& ml = t.ledger();
  const auto target = static_cast<double>(limit) * eviction_target;
  const mledger::managed_cursor* previous = nullptr;
  for (;;) {
    const auto backlog = static_cast<double>(estimated_backlog_bytes(ml));
    if (backlog <= target) return;
    std::uint64_t entries = 0;
    auto* cursor = slowest(ml, entries);
    // The same cursor twice means it did not move (or nobody else is behind it).
    if (cursor == nullptr || cursor == previous) return;
    const auto skip = static_cast<std::uint64_t>(static_cast<double>(entries) * ((backlog - target) / backlog));
    if (skip == 0) return;
    const auto to = entry_after(ml, cursor->mark_delete_position(), skip);
    spdlog::info("{}: backlog quota exceeded: subscription {} skips {} entries to {}", t.full_name(), cursor->name(),
                 skip, to);
    if (auto moved = acknowledge_upto(t, *cursor, to); !moved) {
      spdlog::warn("{}: backlog eviction on {}: {}", t.full_name(), cursor->name(), moved.error());
      return;
    }
    previous = cursor;
  }
}

}  // namespace

std::uint64_t estimated_backlog_bytes(const mledger::managed_ledger& ml) {
  std::uint64_t entries = 0;
  if (slowest(ml, entries) == nullptr) return 0;
  return entries * average_entry_size(ml);
}

result<void> admit_producer(const topic& t) {
  const auto& p = t.policies();
  if (!p.has_size_quota() || p.storage_quota->policy == backlog_quota_policy::consumer_backlog_eviction) {
    return success();
  }
  if (!over_quota(t)) return success();
  const auto code = p.storage_quota->policy == backlog_quota_policy::producer_request_hold
                        ? errc::producer_blocked_quota_hold
                        : errc::producer_blocked_quota_exception;
  return fail(code, fmt::format("Cannot create producer on topic with backlog quota exceeded ({} bytes, policy {})",
                                p.storage_quota->limit_size, name_of(p.storage_quota->policy)));
}

void enforce_backlog_quota(topic& t) {
  if (!over_quota(t)) return;
  const auto& quota = *t.policies().storage_quota;
  if (quota.policy == backlog_quota_policy::consumer_backlog_eviction) {
    evict(t, static_cast<std::uint64_t>(quota.limit_size));
    return;
  }
  if (t.producer_count() == 0) return;
  spdlog::info("{}: backlog quota exceeded ({} bytes, {}): disconnecting its producers", t.full_name(),
               quota.limit_size, name_of(quota.policy));
  t.disconnect_producers();
}

}  // namespace magnetar::broker
