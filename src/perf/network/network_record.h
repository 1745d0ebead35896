// network_record: the run's record of its network conditions, for the report and for
// anyone checking that an impairment acted:
//
// - network-events.jsonl: one JSON object a line, as they happen:
//     {"epochMillis": 1764758400123, "impairment": "cut", "action": "applied", "detail": "..."}
// - network-summary.json, at the end:
//     {"probe": {"netem": false, ...},
//      "impairments": [{"name", "kind", "method", "from", "to", "pairs", "settings",
//                       "state", "appliedMillis", "removedMillis" (after the measurement's
//                       start; absent when it never acted), "error", "matchedConnections",
//                       "droppedPackets", "queuedPackets", "forwarder", "retransmissions"}]}
//
// Thread-safety: append_network_event() serialises its writes; the rest are functions.
#pragma once

#include "base/result.h"
#include "perf/network/impairment_engine.h"

#include <nlohmann/json.hpp>

#include <chrono>
#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace magnetar::perf {

inline constexpr std::string_view network_events_file = "network-events.jsonl";
inline constexpr std::string_view network_summary_file = "network-summary.json";

result<void> append_network_event(const std::filesystem::path& file, const network_event& event);

nlohmann::json network_summary(const std::vector<planned_impairment>& plan,
                               const std::vector<impairment_record>& records, const nlohmann::json& probe,
                               std::optional<std::chrono::system_clock::time_point> measurement_started);

// What makes a run that otherwise passed fail at the end: an impairment that failed,
// never acted, or a reset or silent disconnection that found no connection.
std::vector<std::string> network_verdict(const std::vector<impairment_record>& records);

}  // namespace magnetar::perf
