// priority: a workload process steps below the launcher's CPU priority.
//
// On a machine the workloads share with the broker (the launcher's own standalone, a
// cluster on this host), the scheduler would split the CPUs evenly over every runnable
// thread: the gateways' and applications' threads would take the broker's share and the
// run would measure the load generators as much as the broker. Upstream's framework
// runs them on machines of their own; a nice value is the nearest this machine has.
//
// Linux keeps a nice value per thread, and a new thread starts with its creator's: taken
// before the process starts any thread, it holds for all of them.
#pragma once

#include "base/result.h"

namespace magnetar::perf {

// Raises the calling thread's nice value by `steps` (0 leaves it), capped at 19 as the
// kernel caps it. Lowering priority needs no privilege.
result<void> lower_priority(int steps);

}  // namespace magnetar::perf
