// settings_validation: the rules between settings that parse_settings() checks once every
// key has its type and range: exclusive settings, what a rate of 0 needs, the timeout
// against the time the workload needs, the late applications' joins.
//
// Stateless, thread-safe.
#pragma once

#include "perf/scenario/settings.h"
#include "perf/scenario/settings_reader.h"

namespace magnetar::perf {

// Adds a message for each broken rule to `problems`.
void validate_settings(const scenario_settings& settings, problem_list& problems);

}  // namespace magnetar::perf
