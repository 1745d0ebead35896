// negative_ack_tracker: the entries a consumer's application negatively acknowledged,
// each due for redelivery negative_ack_redelivery_delay after its nack (upstream's
// NegativeAcksTracker).
//
// Nacks are kept per entry (a batch's messages come again together anyway), so nacking
// several messages of one batch asks for one redelivery. Due entries are taken together,
// so the consumer sends them in one REDELIVER_UNACKNOWLEDGED_MESSAGES. Time is passed
// in, so tests need no clock; the consumer arms one timer for next_due().
//
// Not thread-safe: owned by one consumer and used under its lock.
#pragma once

#include "magnetar/message_id.h"

#include <chrono>
#include <cstddef>
#include <map>
#include <optional>
#include <vector>

namespace magnetar::client_detail {

class negative_ack_tracker {
 public:
  using clock = std::chrono::steady_clock;
  // Upstream's floor: a smaller delay would turn a nack into a busy redelivery loop.
  static constexpr std::chrono::milliseconds min_delay{100};

  explicit negative_ack_tracker(std::chrono::milliseconds delay);

  // Nacks the entry of `id` at `now`. A second nack of a pending entry keeps the first
  // deadline, so repeated nacks don't postpone the redelivery.
  void add(const message_id& id, clock::time_point now);
  // The entries due at `now`, in id order; they are forgotten.
  std::vector<message_id> take_due(clock::time_point now);
  // The earliest deadline, if any entry is pending.
  std::optional<clock::time_point> next_due() const;
  // An ack (or a redelivery of everything) settles a pending nack.
  void remove(const message_id& id);
  void clear();
  bool empty() const { return _due.empty(); }
  std::size_t size() const { return _due.size(); }
  std::chrono::milliseconds delay() const { return _delay; }

 private:
  std::chrono::milliseconds _delay;
  std::map<message_id, clock::time_point> _due;  // by entry id
};

}  // namespace magnetar::client_detail
