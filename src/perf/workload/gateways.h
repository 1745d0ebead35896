// gateways: the `iot-produce` process, every gateway of the IoT telemetry workload.
//
// Phases: open the gateways' clients (and producers with precreate), wait until every
// application has subscribed, then each warmup round (send, drain, wait until every
// application has received the round) and its delay, then the measurement: its start
// goes to the coordination directory, its messages are sent at the rate, and at the end
// the device state, the summary, the latency histograms and the finished marker (with
// the number of messages receipted) are written to the output directory.
#pragma once

#include "perf/workload/workload_options.h"

namespace magnetar::perf {

// Runs the gateways to the end; workload_completed, workload_timed_out or
// workload_failed (the reason printed to stderr).
int run_gateways(const workload_options& options);

}  // namespace magnetar::perf
