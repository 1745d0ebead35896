#include "client/wake_batch.h"

#include <algorithm>

namespace magnetar::client_detail {
namespace {

thread_local wake_batch* current = nullptr;

}  // namespace

wake_batch::wake_batch() : _outer(current) { current = this; }

wake_batch::~wake_batch() {
  current = _outer;
  for (auto& [owner, cv] : _pending) cv->notify_all();
}

void wake_batch::notify_all(const std::shared_ptr<const void>& owner, std::condition_variable& cv) {
  auto* batch = current;
  if (!batch) {
    cv.notify_all();
    return;
  }
  // A read's messages mostly go to one or a few consumers: a scan from the latest
  // beats a set.
  const bool known =
      std::any_of(batch->_pending.rbegin(), batch->_pending.rend(), [&](const auto& p) { return p.second == &cv; });
  if (!known) batch->_pending.emplace_back(owner, &cv);
}

}  // namespace magnetar::client_detail
