// st_producer: the send path: admission, routing, the outbox, retries across seals.
#include "client/st/st_producer.h"

#include "magnetar/errc.h"

#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include <algorithm>
#include <limits>

namespace magnetar::st::detail {

namespace {
// Between checks of a retiring segment the layout still lists: 100, 200, ... 500 ms.
std::chrono::milliseconds recheck_delay(int checks) {
  return std::chrono::milliseconds(std::min(100 * (checks + 1), 500));
}
}  // namespace

void st_producer::send_async(magnetar::message m, send_callback done) {
  actions out;
  {
    std::unique_lock lock(_mutex);
    auto refuse = [&](client_errc e, std::string detail) {
      lock.unlock();
      if (done) done(fail(e, std::move(detail)));
    };
    if (_closed) return refuse(client_errc::already_closed, fmt::format("the producer on {} is closed", _topic));
    while (_outstanding.size() >= _config.max_pending_messages) {
      // Blocking an io thread would stop the receipts that make room.
      if (!_config.block_if_queue_full || _client->on_io_thread()) {
        return refuse(client_errc::producer_queue_is_full,
                      fmt::format("{} messages pending on the producer on {}", _outstanding.size(), _topic));
      }
      _room.wait(lock);
      if (_closed) return refuse(client_errc::already_closed, fmt::format("the producer on {} is closed", _topic));
    }
    pending_send s{_next_seq++, std::move(m), std::move(done), 0, 0};
    _outstanding.insert(s.seq);
    if (!_retiring.empty()) {
      // Behind the sends a split or merge refused, which go first.
      _held.push_back(std::move(s));
    } else {
      route_locked(std::move(s), out);
    }
  }
  run(out);
  drain();
}

void st_producer::route_locked(pending_send s, actions& out) {
  std::optional<std::string_view> key;
  if (s.m.has_key()) key = s.m.key();
  auto routed = _router.route(*_layout, key);
  if (!routed) {
    complete_locked(s, routed.error(), out);
    return;
  }
  const segment_info& seg = *routed.value();
  auto& sl = _slots[seg.id];
  if (sl.topic.empty()) sl.topic = seg.topic;
  s.segment = seg.id;
  ++sl.in_flight;
  if (sl.producer) {
    _outbox.push_back(outgoing{sl.producer, std::move(s)});
    return;
  }
  sl.waiting.push_back(std::move(s));
  if (!sl.creating) create_segment_producer_locked(seg.id);
}

void st_producer::create_segment_producer_locked(std::uint64_t segment) {
  auto& sl = _slots[segment];
  sl.creating = true;
  const segment_info* info = _layout ? _layout->find(segment) : nullptr;
  segment_info copy;
  if (info != nullptr) {
    copy = *info;
  } else {
    copy.id = segment;
    copy.topic = sl.topic;
  }
  asio::co_spawn(
      _home.executor(),
      [self = shared_from_this(), segment, copy = std::move(copy)]() mutable {
        return self->make_segment_producer(segment, std::move(copy));
      },
      asio::detached);
}

awaitable<void> st_producer::make_segment_producer(std::uint64_t segment, segment_info info) {
  auto p = std::make_shared<client_detail::producer_impl>(_client, info.topic, segment_producer_config(_config, info));
  auto r = co_await p->start();
  actions out;
  bool stale = false;
  {
    std::lock_guard lock(_mutex);
    auto it = _slots.find(segment);
    if (_closed || it == _slots.end()) {
      stale = true;
    } else {
      auto& sl = it->second;
      sl.creating = false;
      auto waiting = std::move(sl.waiting);
      sl.waiting.clear();
      if (r) {
        sl.producer = p;
        for (auto& s : waiting) _outbox.push_back(outgoing{p, std::move(s)});
      } else {
        spdlog::info("client: st producer on {}: segment {} producer: {}", _topic, segment, r.error().message());
        sl.in_flight -= static_cast<int>(waiting.size());
        for (auto& s : waiting) handle_failure_locked(segment, std::move(s), r.error(), out);
        try_release_locked(out);
      }
    }
  }
  if (stale && r) (void)co_await p->close();
  run(out);
  drain();
}

void st_producer::drain() {
  std::unique_lock lock(_mutex);
  // One drainer at a time, so the segment producers get sends in the order accepted.
  if (_draining) return;
  _draining = true;
  while (!_outbox.empty()) {
    auto o = std::move(_outbox.front());
    _outbox.pop_front();
    lock.unlock();
    auto m = o.send.m;
    const auto segment = o.send.segment;
    o.producer->send_async(std::move(m), [weak = weak_from_this(), segment,
                                          s = std::move(o.send)](result<magnetar::message_id> r) mutable {
      if (auto self = weak.lock()) {
        self->on_sent(segment, std::move(s), std::move(r));
      } else if (s.done) {
        s.done(r ? result<message_id>(message_id(static_cast<std::int64_t>(segment), r.value()))
                 : result<message_id>(r.error()));
      }
    });
    lock.lock();
  }
  _draining = false;
}

void st_producer::on_sent(std::uint64_t segment, pending_send s, result<magnetar::message_id> r) {
  actions out;
  {
    std::lock_guard lock(_mutex);
    auto it = _slots.find(segment);
    if (it != _slots.end()) --it->second.in_flight;
    if (r) {
      message_id id(static_cast<std::int64_t>(segment), r.value());
      if (_topic_ref) id.set_topic_name(*_topic_ref);
      complete_locked(s, std::move(id), out);
    } else {
      handle_failure_locked(segment, std::move(s), r.error(), out);
    }
    try_release_locked(out);
  }
  run(out);
  drain();
}

void st_producer::handle_failure_locked(std::uint64_t segment, pending_send s, const error& e, actions& out) {
  if (_closed || !is_segment_gone(e) || s.attempts + 1 >= max_send_attempts) {
    complete_locked(s, e, out);
    return;
  }
  ++s.attempts;
  auto& sl = _slots[segment];
  if (!sl.retiring) {
    sl.retiring = true;
    sl.checks = 0;
    _retiring.insert(segment);
  }
  if (sl.producer) {
    // It failed for good (the topic is terminated); the last reference goes outside the lock.
    out.push_back([p = std::move(sl.producer)] {});
    sl.producer = nullptr;
  }
  _parked.push_back(std::move(s));
}

void st_producer::complete_locked(pending_send& s, result<message_id> r, actions& out) {
  // The send counts as pending until its callback has run, so a flush completes only
  // after the callbacks of the sends before it.
  std::optional<error> failure;
  if (!r) failure = r.error();
  out.push_back([this, seq = s.seq, done = std::move(s.done), r = std::move(r), failure]() mutable {
    if (done) done(std::move(r));
    settled(seq, failure);
  });
}

void st_producer::settled(std::uint64_t seq, const std::optional<error>& failure) {
  std::vector<flush_waiter> finished;
  {
    std::lock_guard lock(_mutex);
    _outstanding.erase(seq);
    _room.notify_all();
    for (auto& f : _flushes) {
      if (failure && seq < f.upto && !f.failure) f.failure = failure;
    }
    const std::uint64_t lowest =
        _outstanding.empty() ? std::numeric_limits<std::uint64_t>::max() : *_outstanding.begin();
    std::erase_if(_flushes, [&](flush_waiter& f) {
      if (lowest < f.upto) return false;
      finished.push_back(std::move(f));
      return true;
    });
  }
  for (auto& f : finished) {
    if (f.failure) {
      f.done(*f.failure);
    } else {
      f.done(success());
    }
  }
}

void st_producer::try_release_locked(actions& out) {
  if (_retiring.empty() || _closed) return;
  bool waiting_for_layout = false;
  for (auto it = _retiring.begin(); it != _retiring.end();) {
    auto sl = _slots.find(*it);
    if (sl == _slots.end()) {
      it = _retiring.erase(it);
      continue;
    }
    if (sl->second.in_flight > 0 || sl->second.creating) {
      ++it;
      continue;
    }
    const auto* seg = _layout->find(*it);
    if (seg != nullptr && !seg->sealed) {
      // Refused as sealed, but the broker's newer layout has not come yet.
      waiting_for_layout = true;
      ++it;
      continue;
    }
    close_slot_locked(*it, out);
    it = _retiring.erase(it);
  }
  if (waiting_for_layout) arm_recheck_locked();
  if (!_retiring.empty()) return;
  // Everything refused and everything held, in call order, on the newest layout.
  std::vector<pending_send> again = std::move(_parked);
  _parked.clear();
  for (auto& s : _held) again.push_back(std::move(s));
  _held.clear();
  std::sort(again.begin(), again.end(), [](const pending_send& a, const pending_send& b) { return a.seq < b.seq; });
  for (auto& s : again) route_locked(std::move(s), out);
}

void st_producer::arm_recheck_locked() {
  if (_recheck_armed) return;
  int checks = max_send_attempts;
  for (auto id : _retiring) checks = std::min(checks, _slots[id].checks);
  _recheck_armed = true;
  _recheck_timer.expires_after(recheck_delay(checks));
  _recheck_timer.async_wait([weak = weak_from_this()](boost::system::error_code ec) {
    if (ec) return;
    if (auto self = weak.lock()) self->on_recheck();
  });
}

void st_producer::on_recheck() {
  actions out;
  {
    std::lock_guard lock(_mutex);
    _recheck_armed = false;
    if (_closed) return;
    for (auto it = _retiring.begin(); it != _retiring.end();) {
      auto& sl = _slots[*it];
      const auto* seg = _layout->find(*it);
      const bool listed = seg != nullptr && !seg->sealed;
      if (!listed || sl.in_flight > 0 || sl.creating || ++sl.checks < max_send_attempts) {
        ++it;
        continue;
      }
      // The layout never moved on: its refused sends fail; the segment may be tried afresh.
      const auto id = *it;
      spdlog::warn("client: st producer on {}: segment {} refuses sends but the layout still lists it; giving up",
                   _topic, id);
      std::vector<pending_send> mine;
      std::erase_if(_parked, [&](pending_send& s) {
        if (s.segment != id) return false;
        mine.push_back(std::move(s));
        return true;
      });
      for (auto& s : mine) {
        complete_locked(s,
                        error(client_errc::topic_terminated,
                              fmt::format("segment {} of {} is sealed and the layout did not move on", id, _topic)),
                        out);
      }
      close_slot_locked(id, out);
      it = _retiring.erase(it);
    }
    try_release_locked(out);
  }
  run(out);
  drain();
}

}  // namespace magnetar::st::detail
