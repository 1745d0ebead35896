#include "io/timer.h"

#include "base/assert.h"

namespace magnetar::io {

// The state of a wait on a manual clock, shared with the clock's wake-up so
// that a wake-up racing with the timer's destruction touches nothing freed.
struct timer::manual_wait {
  base::manual_clock::wakeup_id id = 0;
  bool reached = false;
  bool alive = true;
};

timer::timer(asio::any_io_executor executor, base::clock& clock) : _clock(clock), _timer(std::move(executor)) {}

timer::~timer() { cancel(); }

awaitable<bool> timer::wait_until(base::clock::time_point deadline) {
  MAGNETAR_ASSERT(!_manual, "a timer serves one wait at a time");
  boost::system::error_code ec;
  auto* manual = _clock.as_manual();
  if (manual == nullptr) {
    _timer.expires_at(deadline);
    co_await _timer.async_wait(asio::redirect_error(asio::use_awaitable, ec));
    co_return !ec;
  }

  auto wait = std::make_shared<manual_wait>();
  _manual = wait;
  _timer.expires_at(asio::steady_timer::time_point::max());
  // The clock runs wake-ups on the thread that advances it; hop to ours.
  wait->id = manual->call_at(deadline, [wait, executor = _timer.get_executor(), this] {
    asio::post(executor, [wait, this] {
      if (!wait->alive) return;
      wait->reached = true;
      _timer.cancel();
    });
  });
  // An already-due deadline posted its wake-up above; either way we park here.
  co_await _timer.async_wait(asio::redirect_error(asio::use_awaitable, ec));
  _manual.reset();
  co_return wait->reached;
}

awaitable<bool> timer::wait_for(base::clock::duration delay) { return wait_until(_clock.now() + delay); }

void timer::cancel() {
  if (_manual) {
    if (auto* manual = _clock.as_manual()) manual->cancel(_manual->id);
    _manual->alive = false;
  }
  _timer.cancel();
}

}  // namespace magnetar::io
