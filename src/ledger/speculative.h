// speculative: the first of several equivalent attempts to succeed
// (BookKeeper's speculative reads). Attempt 0 starts at once; each next one
// starts when the previous failed, or when `patience` passed with no answer
// (0: only on failure, one at a time). The first success wins; attempts still
// running finish on their own and are ignored. When every attempt failed, the
// failures come back in order.
// Threading: on one executor (a shard); the attempts run as coroutines there.
#pragma once

#include "base/result.h"
#include "io/asio.h"
#include "io/run_on.h"

#include <chrono>
#include <functional>
#include <memory>
#include <optional>
#include <vector>

namespace magnetar::ledger {

template <class T>
using attempt = std::function<awaitable<result<T>>()>;

template <class T>
awaitable<result<T>> first_success(std::vector<attempt<T>> attempts, std::chrono::milliseconds patience,
                                   std::vector<error>& failures) {
  struct race {
    explicit race(asio::any_io_executor ex) : wake(std::move(ex)) {}
    asio::steady_timer wake;  // cancelled by each answer
    std::optional<T> winner;
    std::size_t running = 0;
    std::size_t failures = 0;
    std::vector<std::optional<error>> failed;
  };
  auto executor = co_await asio::this_coro::executor;
  auto state = std::make_shared<race>(executor);
  state->failed.resize(attempts.size());
  std::size_t started = 0;
  const auto start_next = [&] {
    const auto index = started++;
    ++state->running;
    io::spawn(executor, [state, index, run = attempts[index]]() -> awaitable<void> {
      auto outcome = co_await run();
      --state->running;
      if (outcome) {
        if (!state->winner) state->winner = std::move(outcome).value();
      } else {
        state->failed[index] = std::move(outcome).error();
        ++state->failures;
      }
      state->wake.cancel();
    });
  };
  for (;;) {
    if (state->winner) co_return std::move(*state->winner);
    const bool can_start = started < attempts.size();
    if (state->running == 0) {
      if (!can_start) break;
      start_next();
      continue;
    }
    // No suspension between the checks above and the wait below: an answer
    // can't slip in unseen.
    const bool impatient = can_start && patience.count() > 0;
    state->wake.expires_after(impatient ? patience : std::chrono::hours(24 * 365));
    const auto failures_before = state->failures;
    boost::system::error_code ec;
    co_await state->wake.async_wait(asio::redirect_error(asio::use_awaitable, ec));
    // Impatient: a timeout or a failure starts the next attempt beside those running.
    if (impatient && !state->winner && (!ec || state->failures > failures_before)) start_next();
  }
  for (auto& f : state->failed) {
    if (f) failures.push_back(std::move(*f));
  }
  co_return fail(failures.back());
}

}  // namespace magnetar::ledger
