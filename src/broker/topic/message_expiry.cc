#include "broker/topic/message_expiry.h"

#include "base/log.h"
#include "broker/topic/cursor_moves.h"
#include "broker/topic/topic.h"

#include <chrono>

namespace magnetar::broker {

awaitable<result<void>> expire_messages(topic& t, std::int64_t ttl_seconds) {
  if (ttl_seconds <= 0) co_return success();
  auto& ml = t.ledger();
  const auto last = ml.last_confirmed();
  // The search reads entries: only when some subscription has something to expire.
  bool behind = false;
  for (auto* c : subscription_cursors(ml)) behind = behind || c->mark_delete_position() < last;
  if (!behind) co_return success();

  const auto now_ms =
      std::chrono::duration_cast<std::chrono::milliseconds>(t.clock().wall_now().time_since_epoch()).count();
  const auto cutoff = now_ms - ttl_seconds * 1000;
  MAGNETAR_CO_TRY(first_kept, co_await t.find_by_publish_time(cutoff));
  const auto upto = first_kept == mledger::position::latest() ? last : entry_before(ml, first_kept);
  if (upto.ledger().value() < 0 || upto.entry().value() < 0) co_return success();

  // The search awaited: the cursors are looked up again (one may have gone meanwhile).
  for (auto* c : subscription_cursors(ml)) {
    if (c->mark_delete_position() >= upto) continue;
    spdlog::debug("{}: subscription {} expires messages up to {} (TTL {} s)", t.full_name(), c->name(), upto,
                  ttl_seconds);
    if (auto moved = acknowledge_upto(t, *c, upto); !moved) {
      spdlog::warn("{}: expiring messages of {}: {}", t.full_name(), c->name(), moved.error());
    }
  }
  co_return success();
}

}  // namespace magnetar::broker
