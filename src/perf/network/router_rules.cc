#include "perf/network/router_rules.h"

#include "perf/network/socket_faults.h"

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <nlohmann/json.hpp>

#include <cmath>

namespace magnetar::perf {
namespace {

constexpr std::int64_t numgen_scale = 1'000'000;

std::string pair_set(const planned_impairment& i) {
  std::vector<std::string> pairs;
  for (const auto& p : i.pairs) pairs.push_back(fmt::format("{} . {}", p.from.address, p.to.address));
  return fmt::format("ip saddr . ip daddr {{ {} }}", fmt::join(pairs, ", "));
}

std::int64_t scaled(double probability) {
  return std::clamp<std::int64_t>(std::llround(probability * numgen_scale), 0, numgen_scale);
}

void add_loss(std::string& rules, std::string& sets, const planned_impairment& i) {
  const auto& s = i.settings;
  const auto comment = fmt::format("comment \"loss:{}\"", s.name);
  const double loss = s.loss_percent / 100.0;
  if (s.loss_burst <= 0 || loss >= 1.0) {
    rules += fmt::format("    iifname \"v-*\" {} numgen random mod {} < {} counter drop {}\n", pair_set(i),
                         numgen_scale, scaled(loss), comment);
    return;
  }
  const double leave = 1.0 / s.loss_burst;
  const double enter = loss * leave / (1.0 - loss);
  const auto set = fmt::format("ge{}", i.index);
  sets += fmt::format("  set {} {{ type ipv4_addr . ipv4_addr; size 65535; flags dynamic; }}\n", set);
  rules += fmt::format(
      "    iifname \"v-*\" ip saddr . ip daddr @{0} numgen random mod {1} < {2} delete @{0} {{ ip saddr . ip daddr "
      "}}\n",
      set, numgen_scale, scaled(leave));
  rules += fmt::format("    iifname \"v-*\" ip saddr . ip daddr @{} counter drop {}\n", set, comment);
  rules += fmt::format(
      "    iifname \"v-*\" {} numgen random mod {} < {} add @{} {{ ip saddr . ip daddr }} counter drop {}\n",
      pair_set(i), numgen_scale, scaled(enter), set, comment);
}

}  // namespace

std::string router_ruleset(const std::vector<const planned_impairment*>& active) {
  std::string partitions, losses, sets;
  for (const auto* i : active) {
    if (i->settings.kind == impairment_kind::partition) {
      partitions += fmt::format("    {} counter drop comment \"partition:{}\"\n", pair_set(*i), i->settings.name);
    } else if (i->settings.kind == impairment_kind::condition && i->settings.loss_percent > 0) {
      add_loss(losses, sets, *i);
    }
  }
  // Declaring the table first makes the delete valid when it does not exist yet.
  auto script = table_removal(router_table);
  if (partitions.empty() && losses.empty()) return script;
  script += fmt::format("table ip {} {{\n{}  chain forward {{\n", router_table, sets);
  script += "    type filter hook forward priority -10; policy accept;\n";
  script += partitions + losses + "  }\n}\n";
  return script;
}

std::map<std::string, std::uint64_t> router_drops(std::string_view nft_json) {
  std::map<std::string, std::uint64_t> drops;
  const auto parsed = nlohmann::json::parse(nft_json, nullptr, false);
  if (parsed.is_discarded() || !parsed.contains("nftables")) return drops;
  for (const auto& item : parsed["nftables"]) {
    if (!item.contains("rule")) continue;
    const auto& rule = item["rule"];
    const auto comment = rule.value("comment", std::string());
    const auto colon = comment.find(':');
    if (colon == std::string::npos) continue;
    for (const auto& expr : rule.value("expr", nlohmann::json::array())) {
      if (expr.contains("counter")) drops[comment.substr(colon + 1)] += expr["counter"].value("packets", 0ULL);
    }
  }
  return drops;
}

}  // namespace magnetar::perf
