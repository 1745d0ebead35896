// remote_section: the report's "Remote applications" section of a geo-replicated run
// (cluster.remote): whether every replicated message reached each remote application in
// order (the same checks as the local applications'), their end-to-end latency from the
// original publish time, the replicators' backlog and delay (replication-stats.csv) and
// the remote topics' backlog (remote-topic-stats.csv).
//
// Pure function; thread-safe.
#pragma once

#include "perf/report/document.h"
#include "perf/report/run_data.h"

namespace magnetar::perf::report {

// The run must have a remote side (run.remote).
section remote_section(const run_data& run);

}  // namespace magnetar::perf::report
