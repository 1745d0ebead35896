// retry_first_attempt: a producer's or consumer's creation (its lookup included) is
// tried again, with backoff, while it fails the way a cluster fails it for a moment:
// a broker in the service URL that is down, a bundle being unloaded or changing
// owner (ServiceNotReady), a lookup that timed out. Upstream's clients do the same
// until the operation timeout; any other error (a busy exclusive producer, a bad
// name, an authorization failure) is the answer at once.
// Runs on the caller's executor; one attempt at a time.
#pragma once

#include "base/result.h"
#include "io/asio.h"
#include "magnetar/config.h"
#include "magnetar/errc.h"

#include <algorithm>
#include <chrono>

namespace magnetar::client_detail {

inline bool worth_another_attempt(const error& e) {
  return e == client_errc::service_not_ready || e == client_errc::connect_error ||
         e == client_errc::connection_closed || e == client_errc::timeout || e == client_errc::lookup_error ||
         e == client_errc::not_connected || e == client_errc::too_many_requests;
}

template <class Attempt>
auto retry_first_attempt(const client_config& config, Attempt attempt) -> decltype(attempt()) {
  const auto deadline = std::chrono::steady_clock::now() + config.operation_timeout;
  auto backoff = config.initial_backoff;
  for (;;) {
    auto outcome = co_await attempt();
    if (outcome || !worth_another_attempt(outcome.error()) || std::chrono::steady_clock::now() + backoff > deadline) {
      co_return outcome;
    }
    asio::steady_timer timer(co_await asio::this_coro::executor, backoff);
    co_await timer.async_wait(asio::use_awaitable);
    backoff = std::min(backoff * 2, std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::seconds(2)));
  }
}

}  // namespace magnetar::client_detail
