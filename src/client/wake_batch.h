// wake_batch: wake-ups of threads blocked in a receive, held back while an io thread
// handles the frames of one socket read, then given once per condition variable.
//
// A read brings tens of MESSAGE frames. Woken per message, a receiving thread that
// keeps up went back to sleep after each one: a futex wake and two context switches a
// message, the largest cost of a catch-up consumer (70k switches/s for 100k msg/s).
// Woken once per read, it finds the whole read's messages queued.
#pragma once

#include <condition_variable>
#include <memory>
#include <utility>
#include <vector>

namespace magnetar::client_detail {

class wake_batch {
 public:
  // Collects on this thread until destroyed (no suspension may happen in between).
  wake_batch();
  ~wake_batch();
  wake_batch(const wake_batch&) = delete;
  wake_batch& operator=(const wake_batch&) = delete;

  // notify_all() on `cv` now, or when the batch collecting on this thread ends; `owner`
  // keeps the condition variable alive until then.
  static void notify_all(const std::shared_ptr<const void>& owner, std::condition_variable& cv);

 private:
  wake_batch* _outer;
  std::vector<std::pair<std::shared_ptr<const void>, std::condition_variable*>> _pending;
};

}  // namespace magnetar::client_detail
