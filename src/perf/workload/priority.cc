#include "perf/workload/priority.h"

#include "base/errc.h"

#include <fmt/format.h>

#include <sys/resource.h>
#include <algorithm>
#include <cerrno>
#include <cstring>

namespace magnetar::perf {

namespace {

constexpr int lowest_priority = 19;

// The calling thread's nice value. getpriority returns the value itself, -1 included:
// errno tells an error apart.
result<int> own_nice() {
  errno = 0;
  const int now = ::getpriority(PRIO_PROCESS, 0);
  if (now == -1 && errno != 0) {
    return fail(base::errc::io_error, fmt::format("getpriority: {}", std::strerror(errno)));
  }
  return now;
}

}  // namespace

int available_nice_steps(int steps) {
  auto now = own_nice();
  if (!now || steps <= 0) return 0;
  return std::min(now.value() + steps, lowest_priority) - now.value();
}

result<void> lower_priority(int steps) {
  if (steps <= 0) return success();
  MAGNETAR_TRY(now, own_nice());
  const int wanted = std::min(now + steps, lowest_priority);
  if (::setpriority(PRIO_PROCESS, 0, wanted) != 0) {
    return fail(base::errc::io_error, fmt::format("setpriority to nice {}: {}", wanted, std::strerror(errno)));
  }
  return success();
}

}  // namespace magnetar::perf
