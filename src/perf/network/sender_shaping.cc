#include "perf/network/sender_shaping.h"

#include <fmt/format.h>
#include <nlohmann/json.hpp>

namespace magnetar::perf {
namespace {

constexpr int first_class = 0x10;

}  // namespace

std::string sender_shaping_batch(std::string_view sender, const std::vector<const planned_impairment*>& active) {
  std::string tree;
  for (const auto* i : active) {
    if (i->settings.kind != impairment_kind::condition || i->settings.rate_bits == 0) continue;
    const int id = first_class + i->index;
    std::string filters;
    for (const auto& pair : i->pairs) {
      if (pair.from.name != sender) continue;
      filters += fmt::format("filter add dev eth0 parent 1: protocol ip prio 1 u32 match ip dst {}/32 flowid 1:{:x}\n",
                             pair.to.address, id);
    }
    if (filters.empty()) continue;
    tree += fmt::format("class add dev eth0 parent 1: classid 1:{0:x} htb rate {1}bit ceil {1}bit\n", id,
                        i->settings.rate_bits);
    tree += fmt::format("qdisc add dev eth0 parent 1:{0:x} handle {0:x}: bfifo limit {1}\n", id,
                        i->settings.queue_or_default());
    tree += filters;
  }
  if (tree.empty()) return tree;
  return "qdisc add dev eth0 root handle 1: htb\n" + tree;
}

std::map<int, queue_counts> shaping_queues(std::string_view tc_json) {
  std::map<int, queue_counts> queues;
  const auto parsed = nlohmann::json::parse(tc_json, nullptr, false);
  if (parsed.is_discarded() || !parsed.is_array()) return queues;
  for (const auto& qdisc : parsed) {
    if (qdisc.value("kind", std::string()) != "bfifo") continue;
    const auto handle = qdisc.value("handle", std::string());  // "10:"
    int id = 0;
    try {
      id = std::stoi(handle, nullptr, 16);
    } catch (const std::exception&) {
      continue;
    }
    queues[id - first_class] = {.packets = qdisc.value("packets", 0ULL), .drops = qdisc.value("drops", 0ULL)};
  }
  return queues;
}

}  // namespace magnetar::perf
