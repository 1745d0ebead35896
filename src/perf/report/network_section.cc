#include "perf/report/network_section.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <string>
#include <vector>

namespace magnetar::perf::report {
namespace {

std::string ends(const nlohmann::json& item) {
  const auto side = [](const nlohmann::json& names) {
    std::vector<std::string> out;
    for (const auto& n : names) {
      if (n.is_string()) out.push_back(n.get<std::string>());
    }
    return fmt::format("{}", fmt::join(out, ", "));
  };
  return fmt::format("{} {} {}", side(item.value("from", nlohmann::json::array())),
                     item.value("bothWays", false) ? "<->" : "->", side(item.value("to", nlohmann::json::array())));
}

std::string settings_text(const nlohmann::json& s) {
  std::vector<std::string> parts;
  if (s.contains("delayMicros")) parts.push_back(fmt::format("delay {} ms", s["delayMicros"].get<double>() / 1000));
  if (s.contains("jitterMicros")) {
    parts.push_back(fmt::format("jitter {} ms{}", s["jitterMicros"].get<double>() / 1000,
                                s.value("reorder", false) ? " (reorders)" : ""));
  }
  if (s.contains("lossPercent")) {
    parts.push_back(
        fmt::format("loss {} %{}", s["lossPercent"].get<double>(),
                    s.contains("lossBurst") ? fmt::format(" in bursts of {}", s["lossBurst"].get<double>()) : ""));
  }
  if (s.contains("rateBits")) {
    parts.push_back(fmt::format("rate {} Mbit/s, queue {} KiB", s["rateBits"].get<double>() / 1e6,
                                s.value("queueBytes", 0) / 1024));
  }
  return parts.empty() ? "–" : fmt::format("{}", fmt::join(parts, ", "));
}

std::string seconds_or_dash(const nlohmann::json& item, const char* key) {
  if (!item.contains(key) || !item[key].is_number()) return "–";
  return fmt::format("{:.1f}", item[key].get<double>() / 1000.0);
}

std::string retransmissions(const nlohmann::json& item) {
  std::vector<std::string> parts;
  const auto counts = item.value("retransmissions", nlohmann::json::object());
  for (const auto& [node, count] : counts.items()) {
    if (count.is_number() && count.get<std::int64_t>() > 0) parts.push_back(fmt::format("{} {}", node, count.dump()));
  }
  return parts.empty() ? "0" : fmt::format("{}", fmt::join(parts, ", "));
}

}  // namespace

section network_section(const nlohmann::json& summary) {
  section s{"Network conditions", {}};
  const auto impairments = summary.value("impairments", nlohmann::json::array());
  const bool relative = summary.value("timesRelativeTo", "") == "measurement-started";
  table t{{"Impairment", "Kind", "Where", "Settings", relative ? "Applied (s)" : "Applied", "Removed (s)", "State",
           "Dropped", "Connections", "TCP retransmissions"},
          {false, false, false, false, true, true, false, true, true, false},
          {}};
  bullet_list notes;
  for (const auto& item : impairments) {
    if (!item.is_object()) continue;
    const auto name = item.value("name", "");
    const auto state = item.value("state", "");
    t.rows.push_back({code(name), item.value("kind", ""), ends(item),
                      settings_text(item.value("settings", nlohmann::json::object())),
                      seconds_or_dash(item, "appliedMillis"), seconds_or_dash(item, "removedMillis"),
                      state == "failed" || state == "never-applied" ? bold(state) : inline_text(state),
                      std::to_string(item.value("droppedPackets", 0)),
                      item.contains("matchedConnections") ? std::to_string(item.value("matchedConnections", 0)) : "–",
                      retransmissions(item)});
    notes.items.push_back(code(name) + inline_text(": " + item.value("method", "")));
    if (item.contains("error")) notes.items.push_back(code(name) + inline_text(" failed: " + item.value("error", "")));
    if (item.contains("forwarder") && item["forwarder"].is_object()) {
      const auto& f = item["forwarder"];
      notes.items.push_back(
          code(name) +
          inline_text(fmt::format(": the delay forwarder passed {} packets ({:.1f} MB), released "
                                  "late by p50 {} us, p99 {} us, dropped {}",
                                  f.value("packets", 0), f.value("bytes", 0.0) / 1e6, f.value("latenessP50Micros", 0.0),
                                  f.value("latenessP99Micros", 0.0), f.value("dropped", 0))));
    }
  }
  s.blocks.push_back(paragraph{relative ? "Times are seconds after the measurement's start (negative: before it)."
                                        : "The measurement did not start; times are epoch milliseconds."});
  s.blocks.push_back(std::move(t));
  s.blocks.push_back(std::move(notes));
  s.blocks.push_back(paragraph{
      inline_text("Every apply and removal with its time: ") + link("network-events.jsonl", "network-events.jsonl") +
      inline_text("; the nft and tc scripts applied, in order, and the forwarders' logs: ") +
      link("network/", "network") + inline_text("; the engine's probe of this machine: ") +
      code(summary.value("probe", nlohmann::json::object()).dump()) +
      inline_text(". Dropped counts the impairment's own drops (nft rules and rate queues); retransmissions are "
                  "each endpoint's TCP segments sent again while it acted.")});
  return s;
}

}  // namespace magnetar::perf::report
