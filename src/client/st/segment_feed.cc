#include "client/st/segment_feed.h"

namespace magnetar::st::detail {

segment_feed::segment_feed(std::uint64_t segment, std::shared_ptr<client_detail::consumer_impl> consumer,
                           std::shared_ptr<delivery_queue> queue, stamp_fn stamp, ended_fn ended)
    : _segment(segment),
      _consumer(std::move(consumer)),
      _queue(std::move(queue)),
      _stamp(std::move(stamp)),
      _ended(std::move(ended)) {}

void segment_feed::start() { pump(); }

void segment_feed::stop() {
  std::lock_guard lock(_mutex);
  _stopped = true;
  _aside.reset();
}

void segment_feed::pump() {
  std::unique_lock lock(_mutex);
  // One loop per feed: a receive_async that completes at once (a message was queued) is
  // taken up by this loop rather than recursing from the callback.
  if (_pumping) return;
  _pumping = true;
  while (!_stopped && !_waiting && !_aside) {
    _waiting = true;
    lock.unlock();
    _consumer->receive_async([weak = weak_from_this()](result<magnetar::message> r) {
      if (auto self = weak.lock()) self->on_message(std::move(r));
    });
    lock.lock();
  }
  _pumping = false;
}

void segment_feed::on_message(result<magnetar::message> r) {
  {
    std::lock_guard lock(_mutex);
    _waiting = false;
    if (_stopped) return;
    if (!r) _stopped = true;
  }
  if (!r) {
    if (_ended) _ended(_segment, r.error());
    return;
  }
  delivery d{std::move(r).value(), _segment, nullptr};
  if (offer(d)) pump();
}

bool segment_feed::offer(delivery& d) {
  auto outcome = _queue->try_push(d, [this](delivery& x) {
    if (_stamp) _stamp(x);
  });
  if (outcome == delivery_queue::push_outcome::queued) return true;
  if (outcome == delivery_queue::push_outcome::closed) {
    // The consumer is closing: nothing more to move.
    std::lock_guard lock(_mutex);
    _stopped = true;
    return false;
  }
  {
    std::lock_guard lock(_mutex);
    if (_stopped) return false;
    _aside = std::move(d);
  }
  _queue->when_room([weak = weak_from_this()](bool open) {
    if (auto self = weak.lock()) self->on_room(open);
  });
  return false;
}

void segment_feed::on_room(bool open) {
  std::optional<delivery> d;
  {
    std::lock_guard lock(_mutex);
    if (!open || _stopped || !_aside) return;
    d = std::move(_aside);
    _aside.reset();
  }
  if (offer(*d)) pump();
}

}  // namespace magnetar::st::detail
