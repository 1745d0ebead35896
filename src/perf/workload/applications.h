// applications: the `iot-consume` process, every backend application of the IoT
// telemetry workload (see application.h).
//
// Opens every application's pods and marks each application ready, restarts pods as
// behaviors.podRestarts says, and ends once the gateways have finished and every
// application holds each receipted message, or at timeoutSeconds; then writes each
// application's results.
#pragma once

#include "perf/workload/workload_options.h"

namespace magnetar::perf {

// workload_completed, workload_timed_out or workload_failed (the reason on stderr).
int run_applications(const workload_options& options);

}  // namespace magnetar::perf
