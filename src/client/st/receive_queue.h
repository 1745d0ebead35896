// receive_queue: the bounded fan-in queue of a scalable-topic consumer. One receive loop
// per segment puts messages in; the application takes them out with receive,
// receive_async or receive_multi.
//
// Back-pressure: try_push refuses an item when the queue holds `capacity` (full); the
// loop then waits for room (when_room, or co_await wait_for_room()) before it asks its
// segment for the next message, so a slow application holds the brokers back instead
// of filling memory. Every loop waiting is woken once there is room; one that finds the
// queue full again waits again.
//
// try_push runs a `stamp` on the item under the queue's lock right before the item
// becomes visible, so that whatever it records (a stream consumer's position vector)
// happens in the same order as the items enter the queue.
//
// receive_multi(max, timeout) takes what is queued, up to max, and if that is short
// waits for more until the deadline or until max (bounded by the capacity) are there;
// a short or empty batch is a normal result. close(why) drops what is queued, fails
// every waiting receive with `why` (already_closed by default) and tells the loops
// waiting for room that the queue is closed; later calls fail alike.
//
// Thread-safe. Callbacks (receive_async, when_room) run without the lock held, on the
// thread that made room, queued the item or closed.
#pragma once

#include "base/result.h"
#include "io/await_callback.h"
#include "magnetar/errc.h"

#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <condition_variable>
#include <cstddef>
#include <deque>
#include <functional>
#include <mutex>
#include <optional>
#include <utility>
#include <vector>

namespace magnetar::st::detail {

inline constexpr std::size_t default_receive_queue_capacity = 1000;

template <class T>
class receive_queue {
 public:
  using receive_callback = std::function<void(result<T>)>;
  // true: there is room; false: the queue is closed.
  using room_callback = std::function<void(bool)>;
  enum class push_outcome { queued, full, closed };

  explicit receive_queue(std::size_t capacity = default_receive_queue_capacity)
      : _capacity(std::max<std::size_t>(1, capacity)) {}
  receive_queue(const receive_queue&) = delete;
  receive_queue& operator=(const receive_queue&) = delete;

  std::size_t capacity() const { return _capacity; }

  // Queues `item` (moved from only when queued), or hands it to a waiting receive_async.
  template <class Stamp>
  push_outcome try_push(T& item, Stamp&& stamp) {
    std::unique_lock lock(_mutex);
    if (_closed) return push_outcome::closed;
    if (_waiters.empty() && _items.size() >= _capacity) return push_outcome::full;
    stamp(item);
    if (!_waiters.empty()) {
      auto w = std::move(_waiters.front());
      _waiters.pop_front();
      lock.unlock();
      w(std::move(item));
      return push_outcome::queued;
    }
    _items.push_back(std::move(item));
    lock.unlock();
    _arrived.notify_all();
    return push_outcome::queued;
  }
  push_outcome try_push(T& item) {
    return try_push(item, [](T&) {});
  }

  // Calls `ready(true)` once the queue has room (at once if it has), or `ready(false)`
  // once it is closed.
  void when_room(room_callback ready) {
    std::unique_lock lock(_mutex);
    if (_closed || _items.size() < _capacity) {
      const bool open = !_closed;
      lock.unlock();
      ready(open);
      return;
    }
    _room_waiters.push_back(std::move(ready));
  }
  // The same for a coroutine; it resumes on its own executor.
  awaitable<bool> wait_for_room() {
    auto start = [this](std::function<void(bool)> done) { when_room(std::move(done)); };
    co_return co_await io::await_callback<bool>(start);
  }

  // The next item; waits as long as needed, or `timeout` (client_errc::timeout then).
  result<T> receive(std::optional<std::chrono::milliseconds> timeout = std::nullopt) {
    std::unique_lock lock(_mutex);
    auto ready = [&] { return !_items.empty() || _closed; };
    if (!timeout) {
      _arrived.wait(lock, ready);
    } else if (!_arrived.wait_for(lock, *timeout, ready)) {
      return fail(client_errc::timeout, fmt::format("no message within {} ms", timeout->count()));
    }
    if (_closed) return *_failure;
    T item = std::move(_items.front());
    _items.pop_front();
    release_room(lock);
    return item;
  }

  // Calls `done` with the next item (at once when one is queued).
  void receive_async(receive_callback done) {
    std::unique_lock lock(_mutex);
    if (_closed) {
      auto e = *_failure;
      lock.unlock();
      done(std::move(e));
      return;
    }
    if (_items.empty()) {
      _waiters.push_back(std::move(done));
      return;
    }
    T item = std::move(_items.front());
    _items.pop_front();
    release_room(lock);
    done(std::move(item));
  }

  // Up to `max` items: what is queued, then more as they come until `timeout` passes or
  // min(max, capacity) are queued. Errors: invalid_argument (max 0), the close reason.
  result<std::vector<T>> receive_multi(std::size_t max, std::chrono::milliseconds timeout) {
    if (max == 0) return fail(client_errc::invalid_argument, "receive_multi of 0 messages");
    std::unique_lock lock(_mutex);
    const std::size_t enough = std::min(max, _capacity);
    _arrived.wait_for(lock, timeout, [&] { return _items.size() >= enough || _closed; });
    if (_closed) return *_failure;
    std::vector<T> out;
    const std::size_t n = std::min(max, _items.size());
    out.reserve(n);
    for (std::size_t i = 0; i < n; ++i) {
      out.push_back(std::move(_items.front()));
      _items.pop_front();
    }
    if (n > 0) {
      release_room(lock);
    }
    return out;
  }

  // Drops the queued items `which` picks (e.g. those of a segment given up); returns
  // how many.
  template <class Which>
  std::size_t remove_if(Which which) {
    std::unique_lock lock(_mutex);
    const auto n = std::erase_if(_items, which);
    if (n > 0) release_room(lock);
    return n;
  }

  void close(error why = error(client_errc::already_closed, "the consumer is closed")) {
    std::deque<receive_callback> waiters;
    std::vector<room_callback> room;
    {
      std::lock_guard lock(_mutex);
      if (_closed) return;
      _closed = true;
      _failure = std::move(why);
      _items.clear();
      waiters.swap(_waiters);
      room.swap(_room_waiters);
    }
    _arrived.notify_all();
    for (auto& w : waiters) w(*_failure);
    for (auto& r : room) r(false);
  }

  std::size_t size() const {
    std::lock_guard lock(_mutex);
    return _items.size();
  }
  bool is_closed() const {
    std::lock_guard lock(_mutex);
    return _closed;
  }

 private:
  // After items left: wakes the loops waiting for room. Unlocks `lock`.
  void release_room(std::unique_lock<std::mutex>& lock) {
    std::vector<room_callback> room;
    if (_items.size() < _capacity) room.swap(_room_waiters);
    lock.unlock();
    for (auto& r : room) r(true);
  }

  const std::size_t _capacity;
  mutable std::mutex _mutex;
  std::condition_variable _arrived;
  std::deque<T> _items;
  std::deque<receive_callback> _waiters;
  std::vector<room_callback> _room_waiters;
  bool _closed = false;
  // Set once closed; never changes after.
  std::optional<error> _failure;
};

}  // namespace magnetar::st::detail
