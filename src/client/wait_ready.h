// wait_ready: a blocking receive's wait for its queue, shared by the single and the
// multi-topic consumer. Called with the consumer's lock held; returns with it held.
#pragma once

#include "base/result.h"
#include "magnetar/errc.h"

#include <fmt/format.h>

#include <chrono>
#include <condition_variable>
#include <mutex>
#include <optional>

namespace magnetar::client_detail {

// Waits on `arrived` until `ready()`, for at most `timeout` when one is given
// (client_errc::timeout then).
template <class Ready>
result<void> wait_ready(std::condition_variable& arrived, std::unique_lock<std::mutex>& lock,
                        std::optional<std::chrono::milliseconds> timeout, Ready ready) {
  if (!timeout) {
    arrived.wait(lock, ready);
    return success();
  }
  if (!arrived.wait_for(lock, *timeout, ready)) {
    return fail(client_errc::timeout, fmt::format("no message within {} ms", timeout->count()));
  }
  return success();
}

}  // namespace magnetar::client_detail
