#include "io/oneshot_signal.h"

namespace magnetar::io {

oneshot_signal::oneshot_signal(asio::any_io_executor executor) : _state(std::make_shared<state>(std::move(executor))) {
  _state->timer.expires_at(asio::steady_timer::time_point::max());
}

awaitable<void> oneshot_signal::wait() {
  auto keep = _state;
  while (!keep->fired.load(std::memory_order_acquire)) {
    boost::system::error_code ignored;
    co_await keep->timer.async_wait(asio::redirect_error(asio::use_awaitable, ignored));
  }
}

void oneshot_signal::fire() {
  if (_state->fired.exchange(true, std::memory_order_acq_rel)) return;
  // The timer belongs to the waiter's executor: cancel it there, not here.
  asio::post(_state->timer.get_executor(), [keep = _state] { keep->timer.cancel(); });
}

bool oneshot_signal::fired() const { return _state->fired.load(std::memory_order_acquire); }

}  // namespace magnetar::io
