// gate: lets a service's stop() wait for the work it has in flight.
//
// Each piece of work enters the gate and holds a `pass` while it runs; close()
// refuses new entries and completes once every pass is released, so nothing
// acknowledged is cut off half-way by a shutdown. Thread-safe: work on any
// shard may enter and leave; close() is awaited by one coroutine, once.
#pragma once

#include "base/result.h"
#include "io/asio.h"
#include "io/oneshot_signal.h"

#include <cstdint>
#include <memory>
#include <mutex>
#include <optional>
#include <string>

namespace magnetar::io {

class gate {
 public:
  // Proof of admission; leaving the gate is its destruction. Move-only.
  class pass {
   public:
    pass(pass&& other) noexcept : _gate(std::exchange(other._gate, nullptr)) {}
    pass& operator=(pass&& other) noexcept;
    pass(const pass&) = delete;
    pass& operator=(const pass&) = delete;
    ~pass() { release(); }

   private:
    friend class gate;
    explicit pass(gate* g) : _gate(g) {}
    void release();
    gate* _gate;
  };

  // `name` appears in the error that a closed gate returns.
  explicit gate(std::string name = "service");
  ~gate();
  gate(const gate&) = delete;
  gate& operator=(const gate&) = delete;

  // Fails with io::errc::gate_closed once close() has begun.
  result<pass> enter();

  // Refuses new work, then completes when the last pass is released (at once
  // when none is held). Resumes on the caller's executor.
  awaitable<void> close();

  bool is_closed() const;
  std::int64_t in_flight() const;

 private:
  void leave();

  const std::string _name;
  mutable std::mutex _mutex;
  std::int64_t _in_flight = 0;
  bool _closed = false;
  std::optional<oneshot_signal> _drained;
};

}  // namespace magnetar::io
