#include "perf/workload/priority.h"

#include "base/errc.h"

#include <fmt/format.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <sys/resource.h>

namespace magnetar::perf {

result<void> lower_priority(int steps) {
  if (steps <= 0) return success();
  // getpriority returns the value itself, -1 included: errno tells an error apart.
  errno = 0;
  const int now = ::getpriority(PRIO_PROCESS, 0);
  if (now == -1 && errno != 0) {
    return fail(base::errc::io_error, fmt::format("getpriority: {}", std::strerror(errno)));
  }
  const int wanted = std::min(now + steps, 19);
  if (::setpriority(PRIO_PROCESS, 0, wanted) != 0) {
    return fail(base::errc::io_error, fmt::format("setpriority to nice {}: {}", wanted, std::strerror(errno)));
  }
  return success();
}

}  // namespace magnetar::perf
