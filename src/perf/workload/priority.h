// priority: a workload process steps below the launcher's CPU priority.
//
// On a machine the workloads share with the broker (the launcher's own standalone, a
// cluster on this host), the scheduler would split the CPUs evenly over every runnable
// thread: the gateways' and applications' threads would take the broker's share and the
// run would measure the load generators as much as the broker. Upstream's framework
// runs them on machines of their own; a nice value is the nearest this machine has.
//
// Linux keeps a nice value per thread, and a new thread starts with its creator's: taken
// before the process starts any thread, it holds for all of them. Nice values weigh
// threads against each other within one scheduling group (one session, with Debian's
// autogroup): the launcher's own standalone is in the launcher's; nice 10 against 0 is
// about a ninth of the CPU weight, not a strict order.
#pragma once

#include "base/result.h"

namespace magnetar::perf {

// Raises the calling thread's nice value by `steps` (0 leaves it); the kernel stops at
// 19. Lowering priority needs no privilege.
result<void> lower_priority(int steps);

// The steps lower_priority(steps) would really take from the calling thread's value
// (fewer when it is near 19).
int available_nice_steps(int steps);

}  // namespace magnetar::perf
