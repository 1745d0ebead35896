// network_settings_parser: reads and checks the scenario's `network` section
// (network_settings.h). parse_settings() calls both: read_network() for each key's type,
// unit and range, check_network() for the rules between settings and against the cluster
// and the workload's timing once every section is read.
//
// Stateless, thread-safe.
#pragma once

#include "perf/scenario/settings.h"
#include "perf/scenario/settings_reader.h"

namespace magnetar::perf {

void read_network(settings_reader& root, network_settings& out);
void check_network(const scenario_settings& settings, problem_list& problems);

}  // namespace magnetar::perf
