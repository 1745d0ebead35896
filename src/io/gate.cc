#include "io/gate.h"

#include "base/assert.h"
#include "io/errc.h"

namespace magnetar::io {

gate::pass& gate::pass::operator=(pass&& other) noexcept {
  if (this != &other) {
    release();
    _gate = std::exchange(other._gate, nullptr);
  }
  return *this;
}

void gate::pass::release() {
  if (_gate != nullptr) std::exchange(_gate, nullptr)->leave();
}

gate::gate(std::string name) : _name(std::move(name)) {}

gate::~gate() {
  std::lock_guard lock(_mutex);
  MAGNETAR_ASSERT(_in_flight == 0, "gate '{}' destroyed with {} passes held", _name, _in_flight);
}

result<gate::pass> gate::enter() {
  std::lock_guard lock(_mutex);
  if (_closed) return fail(errc::gate_closed, _name + " is stopping");
  ++_in_flight;
  return pass(this);
}

void gate::leave() {
  std::lock_guard lock(_mutex);
  MAGNETAR_ASSERT(_in_flight > 0, "gate '{}' left more often than entered", _name);
  if (--_in_flight == 0 && _drained) _drained->fire();
}

awaitable<void> gate::close() {
  auto executor = co_await asio::this_coro::executor;
  {
    std::lock_guard lock(_mutex);
    MAGNETAR_ASSERT(!_closed, "gate '{}' closed twice", _name);
    _closed = true;
    if (_in_flight == 0) co_return;
    _drained.emplace(executor);
  }
  co_await _drained->wait();
}

bool gate::is_closed() const {
  std::lock_guard lock(_mutex);
  return _closed;
}

std::int64_t gate::in_flight() const {
  std::lock_guard lock(_mutex);
  return _in_flight;
}

}  // namespace magnetar::io
