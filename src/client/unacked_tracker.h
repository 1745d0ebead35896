// unacked_tracker: the entries the application took and has not acknowledged yet, for
// the ack timeout (upstream's UnAckedMessageTracker).
//
// Time is cut into ticks: ids taken during a tick go into the newest partition, and each
// tick() hands out the oldest one, ceil(timeout / tick) + 1 ticks after it was newest.
// So a message is redelivered between `timeout` and `timeout + tick` after it was taken,
// and the work per tick is the expired ids only. Entries, not messages, are tracked: a
// batch comes again whole, and is settled when all its messages are acknowledged.
//
// Not thread-safe: owned by one consumer and used under its lock.
#pragma once

#include "magnetar/message_id.h"

#include <chrono>
#include <cstddef>
#include <deque>
#include <map>
#include <set>
#include <vector>

namespace magnetar::client_detail {

class unacked_tracker {
 public:
  // `tick` is capped at `timeout`; both positive.
  unacked_tracker(std::chrono::milliseconds timeout, std::chrono::milliseconds tick);

  // The entry of `id` was handed to the application (again: it keeps its first time).
  void add(const message_id& id);
  // The entry of `id` is acknowledged (or nacked, or redelivered): no timeout for it.
  void remove(const message_id& id);
  // A cumulative ack: every entry up to and including that of `id`.
  void remove_upto(const message_id& id);
  // Ends a tick: the entries whose timeout passed, in id order; they are forgotten.
  std::vector<message_id> tick();
  void clear();
  bool empty() const { return _where.empty(); }
  std::size_t size() const { return _where.size(); }
  std::chrono::milliseconds tick_interval() const { return _tick; }

 private:
  std::chrono::milliseconds _tick;
  // Oldest first; every partition is a generation of one tick.
  std::deque<std::set<message_id>> _partitions;
  // Each tracked entry and the generation (partition index + _first_generation) it is in.
  std::map<message_id, std::size_t> _where;
  std::size_t _first_generation = 0;
};

}  // namespace magnetar::client_detail
