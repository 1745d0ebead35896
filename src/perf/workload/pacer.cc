#include "perf/workload/pacer.h"

#include <thread>

namespace magnetar::perf {

pacer::clock::time_point pacer::wait(std::uint64_t index) const {
  const auto at = due(index);
  if (at > clock::now()) std::this_thread::sleep_until(at);
  return at;
}

}  // namespace magnetar::perf
