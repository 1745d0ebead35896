// receive_waits: what the threads blocked in a consumer's receive need before they can
// go on, so that an arriving message wakes them only when one of them can.
//
// A batch receive waits for its count (or bytes, or timeout). Woken at each socket read
// that brought it a few messages, it found too few and slept again: two context switches
// a read for nothing, the largest cost of ten Key_Shared consumers that each receive in
// batches. State changes (close, failure, the end of a topic) still wake every waiter.
//
// Used under the consumer's lock; not thread-safe by itself.
#pragma once

#include <algorithm>
#include <cstddef>
#include <vector>

namespace magnetar::client_detail {

class receive_waits {
  struct need {
    std::size_t messages;
    std::size_t bytes;
    bool operator==(const need&) const = default;
  };

 public:
  // One blocked receive, for its wait's scope: it can go on once `messages` are queued,
  // or `bytes`.
  class scope {
   public:
    scope(receive_waits& waits, std::size_t messages, std::size_t bytes)
        : _waits(waits), _need{messages, std::max<std::size_t>(1, bytes)} {
      _waits._needs.push_back(_need);
    }
    ~scope() { _waits._needs.erase(std::find(_waits._needs.begin(), _waits._needs.end(), _need)); }
    scope(const scope&) = delete;
    scope& operator=(const scope&) = delete;

   private:
    receive_waits& _waits;
    need _need;
  };

  // Whether a blocked receive can go on with this much queued.
  bool any_can_go_on(std::size_t queued_messages, std::size_t queued_bytes) const {
    return std::any_of(_needs.begin(), _needs.end(),
                       [&](const need& n) { return queued_messages >= n.messages || queued_bytes >= n.bytes; });
  }

 private:
  std::vector<need> _needs;  // one per blocked receive: rarely more than one
};

}  // namespace magnetar::client_detail
