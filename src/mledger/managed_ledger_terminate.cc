// Termination of a managed ledger: no more adds, the last ledger closed, the last
// position persisted (upstream's asyncTerminate). What a sealed segment of a scalable
// topic, or `pulsar-admin topics terminate`, rests on.
#include "mledger/managed_ledger.h"

#include "mledger/errc.h"

#include <fmt/format.h>
#include <spdlog/spdlog.h>

namespace magnetar::mledger {

awaitable<result<position>> managed_ledger::terminate() {
  if (_state == state::fenced) co_return fail(errc::fenced, fmt::format("terminate {}", _name));
  if (_state != state::open) co_return fail(errc::closed, fmt::format("terminate {}", _name));
  if (is_terminated()) co_return *_terminated_at;
  // From here on add_entry refuses. The adds taken before complete first (a rollover
  // under way sends them to its new ledger), so their producers learn where they went.
  _terminating = true;
  co_await wait_pending_empty();
  // No rollover or trim between closing the ledger and writing the metadata; a second
  // terminate() waits here for the first and finds it done.
  auto guard = co_await _metadata_lock.acquire();
  auto done = co_await terminate_locked();
  co_return done;
}

awaitable<result<position>> managed_ledger::terminate_locked() {
  if (is_terminated()) co_return *_terminated_at;
  if (_state == state::fenced) co_return fail(errc::fenced, fmt::format("terminate {}", _name));
  if (_state != state::open) co_return fail(errc::closed, fmt::format("terminate {}", _name));
  co_await wait_adds_drained();
  if (_writer) {
    // An empty current ledger leaves the chain here, unless it is the only one.
    auto closed = co_await close_current_ledger();
    if (!closed) {
      enter_fenced(closed.error());
      co_return fail(std::move(closed).error());
    }
  }
  _terminated_at = last_confirmed();
  auto stored = co_await store_metadata();
  if (!stored) {
    // Adds stay refused; a later terminate() (or the next metadata write) persists it.
    if (stored.error() == errc::fenced) enter_fenced(stored.error());
    co_return fail(stored.error().code(),
                   fmt::format("managed ledger {}: persisting its termination: {}", _name, stored.error().message()));
  }
  _terminated_persisted = true;
  spdlog::info("managed ledger {} terminated at {}", _name, *_terminated_at);
  co_return *_terminated_at;
}

}  // namespace magnetar::mledger
