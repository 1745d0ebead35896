// applications: the `iot-consume` process, every backend application of the IoT
// telemetry workload (see application.h).
//
// Opens every application's pods and marks each application ready, restarts pods as
// behaviors.podRestarts says, and ends once the gateways have finished and every
// application holds each receipted message, or at timeoutSeconds; then writes each
// application's results. With --remote it is the remote cluster's applications
// (geo-replication): cluster.remote.applications' count, pods and env, every one reading
// from the start.
#pragma once

#include "base/result.h"
#include "perf/scenario/settings.h"
#include "perf/workload/workload_options.h"

namespace magnetar::perf {

// The workload's settings as the local applications (remote false) or the remote
// cluster's (true) run them; invalid_argument for remote without cluster.remote.
result<iot_telemetry_settings> applications_of(const scenario_settings& settings, bool remote);

// workload_completed, workload_timed_out or workload_failed (the reason on stderr).
int run_applications(const workload_options& options);

}  // namespace magnetar::perf
