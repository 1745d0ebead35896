// serial_lock: one coroutine at a time through a section that spans co_awaits.
//
// The managed ledger's metadata is updated by compare-and-set against the version it
// last wrote; a rollover and a trim that both read version n would make the second fail
// as if another owner had fenced us. Holding this lock across read-modify-write keeps
// them in line. Waiters are served in arrival order.
// Owned by one shard; not thread-safe.
#pragma once

#include "io/asio.h"
#include "io/oneshot_signal.h"

#include <deque>
#include <memory>
#include <utility>

namespace magnetar::mledger {

class serial_lock {
 public:
  class guard {
   public:
    guard(guard&& other) noexcept : _lock(std::exchange(other._lock, nullptr)) {}
    guard& operator=(guard&&) = delete;
    ~guard() {
      if (_lock != nullptr) _lock->release();
    }

   private:
    friend class serial_lock;
    explicit guard(serial_lock* lock) : _lock(lock) {}
    serial_lock* _lock;
  };

  awaitable<guard> acquire() {
    if (!_held) {
      _held = true;
      co_return guard(this);
    }
    auto turn = std::make_shared<io::oneshot_signal>(co_await asio::this_coro::executor);
    _waiters.push_back(turn);
    co_await turn->wait();
    // release() handed the lock over without letting go of it.
    co_return guard(this);
  }

  bool held() const { return _held; }

 private:
  void release() {
    if (_waiters.empty()) {
      _held = false;
      return;
    }
    auto next = std::move(_waiters.front());
    _waiters.pop_front();
    next->fire();
  }

  bool _held = false;
  std::deque<std::shared_ptr<io::oneshot_signal>> _waiters;
};

}  // namespace magnetar::mledger
