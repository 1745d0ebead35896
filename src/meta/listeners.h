// Delivery of store events (notifications, session events) to listeners, each
// on the executor it chose.
//
// A backend publishes every committed batch of events while it still holds
// the lock that ordered the commits, so each listener receives them in commit
// order, provided its executor runs handlers one at a time in post order (a
// shard, or a strand). A listener_handle unregisters on destruction: after
// that no new batch is posted, and batches already posted are skipped, except
// one whose call has already begun on another thread (destroy the handle on
// the listener's own executor to rule that out).
// Thread-safety: registry and handle are safe to use from any thread; a handle
// may outlive its registry (and store).
#pragma once

#include "io/asio.h"

#include <atomic>
#include <functional>
#include <memory>
#include <mutex>
#include <utility>
#include <vector>

namespace magnetar::meta {

namespace detail {

struct listener_slot {
  virtual ~listener_slot() = default;
  std::atomic<bool> active{true};
};

}  // namespace detail

class listener_handle {
 public:
  listener_handle() = default;
  explicit listener_handle(std::shared_ptr<detail::listener_slot> slot) : _slot(std::move(slot)) {}
  listener_handle(listener_handle&&) noexcept = default;
  listener_handle& operator=(listener_handle&& other) noexcept {
    if (this != &other) {
      reset();
      _slot = std::move(other._slot);
    }
    return *this;
  }
  listener_handle(const listener_handle&) = delete;
  listener_handle& operator=(const listener_handle&) = delete;
  ~listener_handle() { reset(); }

  // Unregisters now rather than at destruction.
  void reset() {
    if (_slot) std::exchange(_slot, nullptr)->active.store(false, std::memory_order_release);
  }
  bool registered() const { return _slot != nullptr; }

 private:
  std::shared_ptr<detail::listener_slot> _slot;
};

template <class Event>
class listener_registry {
 public:
  using callback = std::function<void(const Event&)>;

  listener_handle add(asio::any_io_executor executor, callback fn) {
    auto slot = std::make_shared<entry>(std::move(executor), std::move(fn));
    std::lock_guard lock(_mutex);
    _entries.push_back(slot);
    return listener_handle(std::move(slot));
  }

  // Posts the batch, in order, to every registered listener. One post per
  // listener keeps a batch together and costs one wake-up.
  void publish(std::vector<Event> events) {
    if (events.empty()) return;
    auto batch = std::make_shared<const std::vector<Event>>(std::move(events));
    std::lock_guard lock(_mutex);
    std::erase_if(_entries, [](const std::weak_ptr<entry>& e) { return e.expired(); });
    for (const auto& weak : _entries) {
      auto target = weak.lock();
      if (!target) continue;
      asio::post(target->executor, [target, batch] {
        for (const auto& event : *batch) {
          if (!target->active.load(std::memory_order_acquire)) return;
          target->fn(event);
        }
      });
    }
  }

  std::size_t size() const {
    std::lock_guard lock(_mutex);
    std::size_t live = 0;
    for (const auto& e : _entries) live += e.expired() ? 0 : 1;
    return live;
  }

 private:
  struct entry final : detail::listener_slot {
    entry(asio::any_io_executor ex, callback f) : executor(std::move(ex)), fn(std::move(f)) {}
    asio::any_io_executor executor;
    callback fn;
  };

  mutable std::mutex _mutex;
  // Weak: the handle owns the listener; posted batches keep it alive until run.
  std::vector<std::weak_ptr<entry>> _entries;
};

}  // namespace magnetar::meta
