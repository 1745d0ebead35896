#include "client/batch_flusher.h"

#include <algorithm>

namespace magnetar::client_detail {

batch_flusher::batch_flusher(asio::any_io_executor executor) : _timer(std::move(executor)) {}

void batch_flusher::schedule(clock::duration delay, std::function<void()> flush) {
  const auto now = clock::now();
  bool post_arm = false;
  {
    std::lock_guard lock(_mutex);
    _waiting.push_back({now + delay, now + delay - delay / 4, std::move(flush)});
    // Posted only when this batch is due before the timer fires: with one batching delay
    // for all, that is when the flusher was idle, not for every batch.
    if (!_fires_at || now + delay < *_fires_at) {
      _fires_at = now + delay;
      post_arm = true;
    }
  }
  if (post_arm) asio::post(_timer.get_executor(), [self = shared_from_this()] { self->arm(); });
}

std::size_t batch_flusher::waiting() const {
  std::lock_guard lock(_mutex);
  return _waiting.size();
}

void batch_flusher::arm() {
  clock::time_point at;
  {
    std::lock_guard lock(_mutex);
    if (!_fires_at) return;  // fired meanwhile with nothing left
    at = *_fires_at;
  }
  if (_waiting_for == at) return;  // already armed for it (an earlier post)
  _waiting_for = at;
  _timer.expires_at(at);  // cancels a later wait; that one returns operation_aborted
  _timer.async_wait([self = shared_from_this()](boost::system::error_code ec) {
    if (ec) return;  // replaced by a sooner wait, which is in flight
    self->_waiting_for.reset();
    self->on_timer();
  });
}

void batch_flusher::on_timer() {
  std::vector<std::function<void()>> due;
  bool more = false;
  {
    std::lock_guard lock(_mutex);
    const auto now = clock::now();
    auto rest =
        std::partition(_waiting.begin(), _waiting.end(), [&](const waiting_batch& b) { return b.earliest > now; });
    for (auto it = rest; it != _waiting.end(); ++it) due.push_back(std::move(it->flush));
    _waiting.erase(rest, _waiting.end());
    _fires_at.reset();
    for (const auto& b : _waiting) {
      if (!_fires_at || b.deadline < *_fires_at) _fires_at = b.deadline;
    }
    more = _fires_at.has_value();
  }
  if (more) arm();
  for (auto& flush : due) flush();
}

}  // namespace magnetar::client_detail
