#include "perf/scenario/network_settings_parser.h"

#include "perf/scenario/network_endpoints.h"
#include "perf/scenario/quantity_units.h"

#include <fmt/format.h>

#include <limits>
#include <set>

namespace magnetar::perf {
namespace {

using std::chrono::duration_cast;
using std::chrono::milliseconds;

constexpr std::chrono::seconds max_delay{10};
constexpr std::int64_t min_rate_bits = 8'000;

// Reads `key` as text and converts it with `parse`; a problem naming the form otherwise.
template <typename T, typename Parse>
void read_unit(settings_reader& section, std::string_view key, T& out, Parse parse, std::string_view form) {
  if (!section.has(key)) return;
  std::string text;
  section.read(key, text);
  if (text.empty()) return;  // the reader named the problem
  if (const auto parsed = parse(text)) {
    out = *parsed;
  } else {
    section.problems().add(fmt::format("{} must be {}, not \"{}\"", section.path_of(key), form, text));
  }
}

impairment_kind read_kind(settings_reader& section) {
  std::string kind = "condition";
  section.read("kind", kind);
  if (kind == "partition") return impairment_kind::partition;
  if (kind == "reset") return impairment_kind::reset;
  if (kind == "silentDisconnect") return impairment_kind::silent_disconnect;
  if (kind != "condition") {
    section.problems().add(
        fmt::format("{}: '{}' is not a kind; kinds are condition, partition, reset and "
                    "silentDisconnect",
                    section.path_of("kind"), kind));
  }
  return impairment_kind::condition;
}

void read_endpoints(settings_reader& section, impairment_settings& out) {
  if (section.has("between")) {
    if (section.has("from") || section.has("to")) {
      section.problems().add(
          fmt::format("{}: set between (both ways) or from and to (one way), not both", section.path_of("between")));
      return;
    }
    std::vector<std::vector<std::string>> sides;
    section.read("between", sides);
    if (sides.size() != 2) {
      section.problems().add(
          fmt::format("{} must name two sides, as [gateways, brokers] or [broker-0, [clients, bookies]]",
                      section.path_of("between")));
      return;
    }
    out.from = sides[0];
    out.to = sides[1];
    out.both_ways = true;
    return;
  }
  section.read("from", out.from);
  section.read("to", out.to);
  if (out.from.empty() || out.to.empty()) {
    section.problems().add(
        fmt::format("network.impairments.{}: say where it acts with between: [A, B] or with from and to", out.name));
  }
}

void read_timing(settings_reader& section, impairment_settings& out) {
  std::optional<std::chrono::microseconds> start, duration;
  read_unit(section, "start", start, parse_duration, "a duration such as 30s");
  read_unit(section, "duration", duration, parse_duration, "a duration such as 30s");
  if (start) out.start = duration_cast<milliseconds>(*start);
  if (duration) out.duration = duration_cast<milliseconds>(*duration);
  std::string anchor = "measurement";
  section.read("anchor", anchor);
  if (anchor == "gateways") {
    out.anchor = impairment_anchor::gateways;
  } else if (anchor != "measurement") {
    section.problems().add(
        fmt::format("{}: '{}' is neither measurement nor gateways", section.path_of("anchor"), anchor));
  }
}

void read_condition(settings_reader& section, impairment_settings& out) {
  read_unit(section, "delay", out.delay, parse_duration, "a duration such as 20ms");
  read_unit(section, "jitter", out.jitter, parse_duration, "a duration such as 5ms");
  read_unit(section, "loss", out.loss_percent, parse_percent, "a percentage from 0% to 100%, such as 1%");
  section.read("lossBurst", out.loss_burst, 1.0, 1000.0);
  read_unit(section, "rate", out.rate_bits, parse_bit_rate, "a bit rate such as 20Mbit, 512kbit or 1Gbit");
  read_unit(section, "queue", out.queue_bytes, parse_byte_size, "a size such as 64kb or 1mb");
  section.read("reorder", out.reorder);
}

impairment_settings read_impairment(settings_reader& impairments, const std::string& name) {
  auto section = impairments.section(name, {"kind", "enabled", "between", "from", "to", "delay", "jitter", "reorder",
                                            "loss", "lossBurst", "rate", "queue", "start", "anchor", "duration"});
  impairment_settings out{.name = name};
  out.kind = read_kind(section);
  section.read("enabled", out.enabled);
  read_endpoints(section, out);
  read_condition(section, out);
  read_timing(section, out);
  return out;
}

// Rules of one impairment alone: the settings its kind takes, ranges between settings.
void check_alone(const impairment_settings& i, problem_list& problems) {
  const auto at = fmt::format("network.impairments.{}", i.name);
  if (i.kind == impairment_kind::condition) {
    if (!i.has_condition()) {
      problems.add(fmt::format("{}: a condition needs delay, jitter, loss or rate (or set kind)", at));
    }
    if (i.delay > max_delay) problems.add(fmt::format("{}.delay: at most {} s", at, max_delay.count()));
    if (i.jitter > i.delay) {
      problems.add(
          fmt::format("{}.jitter ({} us) must not exceed delay ({} us): a packet's delay is "
                      "delay +- jitter",
                      at, i.jitter.count(), i.delay.count()));
    }
    if (i.reorder && i.jitter.count() == 0) problems.add(fmt::format("{}.reorder needs jitter", at));
    if (i.loss_burst > 0 && i.loss_percent <= 0) problems.add(fmt::format("{}.lossBurst needs loss", at));
    if (i.loss_percent >= 100 && i.loss_burst > 0) {
      problems.add(fmt::format("{}.lossBurst: with loss 100% every packet is lost; drop lossBurst", at));
    }
    if (i.rate_bits > 0 && i.rate_bits < min_rate_bits) problems.add(fmt::format("{}.rate: at least 8kbit", at));
    if (i.queue_bytes > 0 && i.rate_bits == 0) problems.add(fmt::format("{}.queue needs rate", at));
    if (i.queue_bytes > 0 && i.queue_bytes < 1500) problems.add(fmt::format("{}.queue: at least 1500b", at));
  } else if (i.has_condition() || i.reorder || i.loss_burst > 0 || i.queue_bytes > 0) {
    problems.add(
        fmt::format("{}: delay, jitter, reorder, loss, lossBurst, rate and queue are a condition's "
                    "settings, not a {}'s",
                    at, kind_name(i.kind)));
  }
  if ((i.kind == impairment_kind::reset || i.kind == impairment_kind::silent_disconnect) && !i.start) {
    problems.add(fmt::format("{}: a {} happens at a time: set start", at, kind_name(i.kind)));
  }
  if (i.kind == impairment_kind::reset && i.duration) {
    problems.add(fmt::format("{}.duration: a reset happens once and has no duration", at));
  }
  if (i.kind == impairment_kind::silent_disconnect && i.both_ways) {
    problems.add(
        fmt::format("{}: a silentDisconnect has a side that forgets (from) and one that keeps "
                    "half-open connections (to): use from and to, not between",
                    at));
  }
  if (i.duration && i.duration->count() == 0) problems.add(fmt::format("{}.duration must be above 0", at));
}

// The directed node pairs an impairment acts on.
std::set<std::pair<std::string, std::string>> directed_pairs(const impairment_settings& i,
                                                             const std::vector<std::string>& from,
                                                             const std::vector<std::string>& to) {
  std::set<std::pair<std::string, std::string>> pairs;
  for (const auto& a : from) {
    for (const auto& b : to) {
      if (a == b) continue;
      pairs.emplace(a, b);
      if (i.both_ways) pairs.emplace(b, a);
    }
  }
  return pairs;
}

// [start, end) in milliseconds after the gateways' start (the earliest anchor); the whole
// run is [0, infinity).
std::pair<std::int64_t, std::int64_t> window(const impairment_settings& i, const iot_telemetry_settings& iot) {
  if (!i.start) return {0, std::numeric_limits<std::int64_t>::max()};
  const std::int64_t anchor = i.anchor == impairment_anchor::measurement ? iot.warmup_total_seconds() * 1000 : 0;
  const std::int64_t start = anchor + i.start->count();
  return {start, i.duration ? start + i.duration->count() : std::numeric_limits<std::int64_t>::max()};
}

}  // namespace

std::string_view kind_name(impairment_kind kind) {
  switch (kind) {
    case impairment_kind::condition: return "condition";
    case impairment_kind::partition: return "partition";
    case impairment_kind::reset: return "reset";
    case impairment_kind::silent_disconnect: return "silentDisconnect";
  }
  return "condition";
}

void read_network(settings_reader& root, network_settings& out) {
  auto network = root.section("network", {"offloads", "impairments"});
  std::string offloads = "auto";
  network.read("offloads", offloads);
  if (offloads == "off") {
    out.offloads = offload_mode::off;
  } else if (offloads == "on") {
    out.offloads = offload_mode::on;
  } else if (offloads != "auto") {
    network.problems().add(fmt::format("{}: '{}' is not auto, off or on", network.path_of("offloads"), offloads));
  }
  const auto names = network.names_in("impairments");
  auto impairments = network.section("impairments", std::vector<std::string_view>(names.begin(), names.end()));
  for (const auto& name : names) out.impairments.push_back(read_impairment(impairments, name));
}

void check_network(const scenario_settings& settings, problem_list& problems) {
  struct resolved {
    const impairment_settings* settings;
    std::set<std::pair<std::string, std::string>> pairs;
  };
  std::vector<resolved> conditions;
  const auto measured_end = (settings.iot.warmup_total_seconds() + settings.iot.measurement_seconds()) * 1000;
  for (const auto& i : settings.network.impairments) {
    if (!i.enabled) continue;
    check_alone(i, problems);
    std::vector<std::string> ends[2];
    bool known = true;
    for (int side = 0; side < 2; ++side) {
      for (const auto& endpoint : side == 0 ? i.from : i.to) {
        auto nodes = endpoint_nodes(endpoint, settings.cluster);
        if (!nodes) {
          problems.add(fmt::format("network.impairments.{}.{}: {}", i.name,
                                   i.both_ways ? "between" : (side == 0 ? "from" : "to"), nodes.error().message()));
          known = false;
          continue;
        }
        ends[side].insert(ends[side].end(), nodes.value().begin(), nodes.value().end());
      }
    }
    if (!known) continue;
    auto pairs = directed_pairs(i, ends[0], ends[1]);
    if (pairs.empty()) {
      problems.add(
          fmt::format("network.impairments.{}: its endpoints name the same nodes; nothing lies between", i.name));
      continue;
    }
    const auto [start, end] = window(i, settings.iot);
    if (i.start && settings.iot.measurement_seconds() > 0 && start >= measured_end) {
      problems.add(
          fmt::format("network.impairments.{}.start: {} ms after the {}'s start is past the measurement's "
                      "estimated end ({} s of warmup and measurement)",
                      i.name, i.start->count(), i.anchor == impairment_anchor::measurement ? "measurement" : "gateways",
                      measured_end / 1000));
    }
    if (i.kind == impairment_kind::condition) conditions.push_back({&i, std::move(pairs)});
  }
  // Two conditions on one directed pair at once would stack in ways no one can read off
  // the report (and the per-pair packet path holds one forwarder): refuse them.
  for (std::size_t a = 0; a < conditions.size(); ++a) {
    for (std::size_t b = a + 1; b < conditions.size(); ++b) {
      const auto [a_start, a_end] = window(*conditions[a].settings, settings.iot);
      const auto [b_start, b_end] = window(*conditions[b].settings, settings.iot);
      if (a_start >= b_end || b_start >= a_end) continue;
      for (const auto& pair : conditions[a].pairs) {
        if (conditions[b].pairs.contains(pair)) {
          problems.add(
              fmt::format("network.impairments.{} and .{} both act on {} -> {} at the same time: merge "
                          "them into one condition, or give them times that do not overlap",
                          conditions[a].settings->name, conditions[b].settings->name, pair.first, pair.second));
          break;
        }
      }
    }
  }
}

}  // namespace magnetar::perf
