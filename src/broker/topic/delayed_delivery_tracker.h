// delayed_delivery_tracker: entries of a Shared or Key_Shared subscription held back
// until their MessageMetadata.deliver_at_time (upstream's InMemoryDelayedDeliveryTracker).
//
// The dispatcher, reading an entry whose deliver time is ahead, keeps its position here
// instead of sending it; once due, the position goes to the dispatcher's replay set and
// is dispatched as any replayed entry (not counted as a redelivery). A batch entry is
// held by its metadata's deliver time, as upstream.
//
// Times are wall-clock milliseconds since the epoch, as producers set deliver_at_time.
// Unlike upstream's default (delayedDeliveryDeliverAtTimeStrict=false, which sends what
// is due within the next tick at once), nothing goes out before its time: the tick only
// bounds how often the dispatcher wakes, so a delivery may be up to one tick late, never
// early.
//
// In memory only: after a restart the cursor reads the unacknowledged entries again and
// the dispatcher tracks those still ahead anew, so nothing is lost but this state.
//
// A plain value type used by one dispatcher, on the topic's shard; not thread-safe.
#pragma once

#include "mledger/position.h"

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <map>
#include <optional>
#include <set>
#include <utility>
#include <vector>

namespace magnetar::broker {

class delayed_delivery_tracker {
 public:
  struct due_entry {
    mledger::position pos;
    std::uint16_t key_hash = 0;  // Key_Shared: the entry's sticky key hash, for the replay set
  };

  explicit delayed_delivery_tracker(std::chrono::milliseconds tick) : _tick_ms(tick.count()) {}

  // Holds `p` until `deliver_at_ms`. False when that is not ahead of `now_ms` (send it
  // now), or `p` is held already.
  bool add(mledger::position p, std::uint16_t key_hash, std::int64_t deliver_at_ms, std::int64_t now_ms);
  bool contains(mledger::position p) const { return _due_of.contains(p); }

  // Takes the entries due at `now_ms`, in position order, and notes the tick.
  std::vector<due_entry> take_due(std::int64_t now_ms);
  // When the dispatcher should look again: the earliest deliver time, but not sooner
  // than a tick after the last take_due; nullopt when nothing is held.
  std::optional<std::int64_t> next_wakeup_ms() const;

  std::size_t size() const { return _due_of.size(); }
  bool empty() const { return _due_of.empty(); }
  // The cursor moved (seek, clear backlog): what is ahead of it is read and tracked again.
  void clear();

 private:
  struct held {
    std::int64_t deliver_at_ms;
    mledger::position pos;
    auto operator<=>(const held&) const = default;
  };

  const std::int64_t _tick_ms;
  std::int64_t _last_tick_ms = std::numeric_limits<std::int64_t>::min() / 2;
  std::set<held> _by_time;
  std::map<mledger::position, std::pair<std::int64_t, std::uint16_t>> _due_of;  // deliver time, key hash
};

}  // namespace magnetar::broker
