// wait_until's template body (see child_process.h).
#pragma once

#include <thread>

namespace magnetar::testing {

template <class Ready>
bool wait_until(Ready ready, std::chrono::milliseconds timeout) {
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  while (!ready()) {
    if (std::chrono::steady_clock::now() >= deadline) return false;
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  return true;
}

}  // namespace magnetar::testing
