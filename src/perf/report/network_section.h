// network_section: the report's "Network conditions" section, from network-summary.json:
// each impairment with where and when it acted, what it dropped and the retransmissions
// it caused, the delay forwarders' figures, and where to look further.
//
// Pure function; thread-safe.
#pragma once

#include "perf/report/document.h"

#include <nlohmann/json.hpp>

namespace magnetar::perf::report {

section network_section(const nlohmann::json& summary);

}  // namespace magnetar::perf::report
