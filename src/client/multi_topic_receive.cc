// multi_topic_consumer: the fan-in from the children, the receive queue and acks.
#include "client/multi_topic_consumer.h"
#include "client/wait_ready.h"
#include "client/wake_batch.h"

#include "magnetar/errc.h"

#include <fmt/format.h>
#include <spdlog/spdlog.h>

namespace magnetar::client_detail {

void multi_topic_consumer::pump(const child_ptr& c) {
  std::unique_lock lock(_mutex);
  // One loop per child: a receive_async that completes at once (a message was queued)
  // is taken up by this loop rather than recursing from the callback.
  if (c->pumping) return;
  c->pumping = true;
  while (!c->gone && !c->waiting && _state == state::ready) {
    if (_queue.size() >= _queue_size) {
      c->paused = true;
      break;
    }
    c->waiting = true;
    lock.unlock();
    c->consumer->receive_async([weak = weak_from_this(), wc = std::weak_ptr<child>(c)](result<message> r) {
      auto self = weak.lock();
      auto ch = wc.lock();
      if (self && ch) self->on_child_message(ch, std::move(r));
    });
    lock.lock();
  }
  c->pumping = false;
}

void multi_topic_consumer::on_child_message(const child_ptr& c, result<message> r) {
  actions out;
  bool again = false;
  bool wake = false;
  {
    std::lock_guard lock(_mutex);
    c->waiting = false;
    if (!r) {
      // The child closed or failed for good (closing it ourselves comes here too).
      c->gone = true;
      const bool all_gone = _state == state::ready && std::all_of(_children.begin(), _children.end(),
                                                                  [](const auto& kv) { return kv.second->gone; });
      if (all_gone && !_children.empty()) {
        spdlog::warn("client: consumer {} on {}: every topic's consumer is closed ({})", _consumer_name, _name,
                     r.error().message());
        _state = state::closed;
        _failure = r.error();
        _discovery_timer.cancel();
        close_waiters_locked(r.error(), out);
      }
    } else if (!c->gone && _state == state::ready) {
      // One handed over during a seek is from before it: dropped, as the child drops
      // what it queued (the broker sends it again if the seek doesn't pass it).
      if (!c->seeking) enqueue_locked(std::move(r).value(), out);
      again = !c->pumping;
    }
    // else: after close: dropped (the broker sends it again).
    wake = _state == state::closed || _blocked_receives.any_can_go_on(_queue.size(), _queued_bytes);
  }
  if (wake) wake_batch::notify_all(shared_from_this(), _arrived);
  run(out);
  if (again) pump(c);
}

void multi_topic_consumer::enqueue_locked(message m, actions& out) {
  if (!_waiters.empty()) {
    auto w = std::move(_waiters.front());
    _waiters.pop_front();
    out.push_back([w = std::move(w), m = std::move(m)] { w(m); });
    return;
  }
  _queued_bytes += m.size();
  _queue.push_back(std::move(m));
}

std::vector<multi_topic_consumer::child_ptr> multi_topic_consumer::resumable_locked() {
  std::vector<child_ptr> out;
  if (_queue.size() >= _queue_size || _state != state::ready) return out;
  for (const auto& [t, c] : _children) {
    if (c->paused && !c->seeking) {
      c->paused = false;
      out.push_back(c);
    }
  }
  return out;
}

void multi_topic_consumer::resume(const std::vector<child_ptr>& children) {
  for (const auto& c : children) pump(c);
}

void multi_topic_consumer::drop_queued_locked(const std::function<bool(const message&)>& which) {
  std::erase_if(_queue, [&](const message& m) {
    if (!which(m)) return false;
    _queued_bytes -= m.size();
    return true;
  });
}

result<message> multi_topic_consumer::receive(std::optional<std::chrono::milliseconds> timeout) {
  if (_client->on_io_thread()) {
    return fail(client_errc::invalid_argument, "a blocking receive on a client io thread would deadlock");
  }
  std::vector<child_ptr> paused;
  std::optional<message> m;
  {
    std::unique_lock lock(_mutex);
    const receive_waits::scope blocked(_blocked_receives, 1, 1);
    MAGNETAR_TRY(wait_ready(_arrived, lock, timeout, [&] { return !_queue.empty() || _state == state::closed; }));
    if (_queue.empty()) return closed_error_locked();
    m = std::move(_queue.front());
    _queue.pop_front();
    _queued_bytes -= m->size();
    paused = resumable_locked();
  }
  resume(paused);
  return std::move(*m);
}

void multi_topic_consumer::receive_async(std::function<void(result<message>)> done) {
  std::vector<child_ptr> paused;
  std::optional<message> m;
  {
    std::unique_lock lock(_mutex);
    if (_state == state::closed) {
      auto e = closed_error_locked();
      lock.unlock();
      done(e);
      return;
    }
    if (_queue.empty()) {
      _waiters.push_back(std::move(done));
      return;
    }
    m = std::move(_queue.front());
    _queue.pop_front();
    _queued_bytes -= m->size();
    paused = resumable_locked();
  }
  resume(paused);
  done(std::move(*m));
}

result<std::vector<message>> multi_topic_consumer::batch_receive(const batch_receive_policy& policy) {
  if (_client->on_io_thread()) {
    return fail(client_errc::invalid_argument, "a blocking receive on a client io thread would deadlock");
  }
  const std::size_t max_messages = std::max<std::size_t>(1, policy.max_messages);
  std::vector<message> out;
  std::vector<child_ptr> paused;
  {
    std::unique_lock lock(_mutex);
    // The shared queue holds at most receiver_queue_size; a larger batch takes what came.
    const std::size_t enough = std::min<std::size_t>(max_messages, _queue_size);
    if (policy.timeout.count() > 0) {  // else what is queued goes at once (consumer_impl's)
      const receive_waits::scope blocked(_blocked_receives, enough, policy.max_bytes);
      _arrived.wait_for(lock, policy.timeout, [&] {
        return _queue.size() >= enough || _queued_bytes >= policy.max_bytes || _state == state::closed;
      });
    }
    if (_queue.empty() && _state == state::closed) return closed_error_locked();
    std::size_t bytes = 0;
    while (!_queue.empty() && out.size() < max_messages) {
      // A message bigger than max_bytes alone still goes, so that it can't block forever.
      if (!out.empty() && bytes + _queue.front().size() > policy.max_bytes) break;
      auto m = std::move(_queue.front());
      _queue.pop_front();
      _queued_bytes -= m.size();
      bytes += m.size();
      out.push_back(std::move(m));
    }
    paused = resumable_locked();
  }
  resume(paused);
  return out;
}

multi_topic_consumer::child_ptr multi_topic_consumer::child_for_locked(const message_id& id) const {
  if (!id.topic_name().empty()) {
    auto it = _children.find(id.topic_name());
    return it == _children.end() ? nullptr : it->second;
  }
  // An id without a topic (built by hand) names a partition of the one partitioned
  // topic this consumer reads, if that is what it reads.
  if (id.partition() < 0 || _by_parent.size() != 1) return nullptr;
  for (const auto& c : _by_parent.begin()->second) {
    if (c->partition == id.partition()) return c;
  }
  return nullptr;
}

result<multi_topic_consumer::child_ptr> multi_topic_consumer::route(const message_id& id, std::string_view what) const {
  std::lock_guard lock(_mutex);
  if (_state == state::closed || _state == state::closing) return closed_error_locked();
  auto c = child_for_locked(id);
  if (!c) {
    return fail(client_errc::not_supported, fmt::format("cannot {} {}: its topic '{}' is not one of {}", what,
                                                        id.to_string(), id.topic_name(), _name));
  }
  return c;
}

result<void> multi_topic_consumer::acknowledge(const message_id& id) {
  MAGNETAR_TRY(c, route(id, "acknowledge"));
  return c->consumer->acknowledge(id);
}

result<void> multi_topic_consumer::acknowledge_cumulative(const message_id& id) {
  // Cumulative within the message's own topic, as upstream; Shared and Key_Shared
  // subscriptions refuse it there.
  MAGNETAR_TRY(c, route(id, "acknowledge"));
  return c->consumer->acknowledge_cumulative(id);
}

result<void> multi_topic_consumer::negative_acknowledge(const message_id& id) {
  MAGNETAR_TRY(c, route(id, "negatively acknowledge"));
  return c->consumer->negative_acknowledge(id);
}

void multi_topic_consumer::reconsume_later(const message& m, std::chrono::milliseconds delay,
                                           std::function<void(result<void>)> done) {
  auto c = route(m.id(), "reconsume later");
  if (!c) return done(c.error());
  c.value()->consumer->reconsume_later(m, delay, std::move(done));
}

result<void> multi_topic_consumer::redeliver_unacknowledged() {
  std::vector<child_ptr> children;
  std::vector<child_ptr> paused;
  {
    std::lock_guard lock(_mutex);
    if (_state == state::closed || _state == state::closing) return closed_error_locked();
    // The children ask for everything unacked again, these included.
    _queue.clear();
    _queued_bytes = 0;
    children = children_locked();
    paused = resumable_locked();
  }
  result<void> outcome = success();
  for (const auto& c : children) {
    auto r = c->consumer->redeliver_unacknowledged();
    if (!r && outcome) outcome = r.error();
  }
  resume(paused);
  return outcome;
}

}  // namespace magnetar::client_detail
