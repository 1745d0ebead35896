// position_tracker: a stream consumer's latest delivered message per segment, from which
// each delivered message's position vector is taken.
//
// deliver(segment, id) records `id` as that segment's latest and returns the snapshot of
// every segment's latest, this one included: the vector the message carries. Call it as
// the message enters the receive queue (receive_queue::try_push's stamp), so that a
// vector never names a message queued after the one carrying it; then a cumulative ack
// of a message acknowledges exactly what the application has been handed before it.
// drop(segment) forgets a segment (released, or drained and closed), so later vectors
// don't name it.
//
// Snapshots are shared and immutable (copy on write): a message holds its vector by
// shared_ptr. Thread-safe.
#pragma once

#include "magnetar/message_id.h"
#include "magnetar/st/message_id.h"

#include <cstdint>
#include <memory>
#include <mutex>
#include <optional>

namespace magnetar::st::detail {

class position_tracker {
 public:
  position_tracker() : _current(std::make_shared<const position_vector>()) {}

  std::shared_ptr<const position_vector> deliver(std::int64_t segment, const magnetar::message_id& id) {
    std::lock_guard lock(_mutex);
    auto next = std::make_shared<position_vector>(*_current);
    (*next)[segment] = id;
    _current = std::move(next);
    return _current;
  }

  void drop(std::int64_t segment) {
    std::lock_guard lock(_mutex);
    if (!_current->contains(segment)) return;
    auto next = std::make_shared<position_vector>(*_current);
    next->erase(segment);
    _current = std::move(next);
  }

  std::shared_ptr<const position_vector> snapshot() const {
    std::lock_guard lock(_mutex);
    return _current;
  }

  std::optional<magnetar::message_id> latest(std::int64_t segment) const {
    std::lock_guard lock(_mutex);
    auto it = _current->find(segment);
    if (it == _current->end()) return std::nullopt;
    return it->second;
  }

 private:
  mutable std::mutex _mutex;
  std::shared_ptr<const position_vector> _current;
};

}  // namespace magnetar::st::detail
