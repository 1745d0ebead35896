// st_split_report: what magnetar-perf st-split prints at the end of a run.
//
// A pure function of its arguments: thread-safe as long as the results are not written
// meanwhile.
#pragma once

#include "perf/bench/st_split_run.h"

#include <string>

namespace magnetar::perf {

// The offered load, the counts, the publish latency percentiles, and the steady, split
// and merge maxima.
std::string summary(const st_split_options& options, const st_split_results& results);

}  // namespace magnetar::perf
