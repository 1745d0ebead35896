#include "broker/scalable/assignment.h"

#include <algorithm>
#include <tuple>

namespace magnetar::broker::scalable {

bool assignable(const segment_layout& layout, const segment_info& segment, const std::set<std::uint64_t>& drained) {
  return std::all_of(segment.parents.begin(), segment.parents.end(),
                     [&](std::uint64_t parent) { return layout.find(parent) == nullptr || drained.contains(parent); });
}

std::map<std::string, consumer_assignment> compute_assignments(const segment_layout& layout, const topic_parts& topic,
                                                               const std::set<std::string>& consumers,
                                                               const std::set<std::uint64_t>& drained) {
  std::vector<const segment_info*> candidates;
  for (const auto& [id, s] : layout.segments) {
    if (assignable(layout, s, drained)) candidates.push_back(&s);
  }
  std::sort(candidates.begin(), candidates.end(), [](auto* a, auto* b) {
    return std::tie(a->range.start, a->range.end, a->id) < std::tie(b->range.start, b->range.end, b->id);
  });
  std::map<std::string, consumer_assignment> out;
  if (consumers.empty()) return out;
  std::vector<std::string> names(consumers.begin(), consumers.end());  // a std::set is sorted by name
  for (const auto& name : names) out[name].layout_epoch = layout.epoch;
  for (std::size_t k = 0; k < candidates.size(); ++k) {
    const auto& s = *candidates[k];
    out[names[k % names.size()]].segments.push_back(
        {s.id, s.range, segment_topic_name(topic.tenant, topic.namespace_part, topic.local, s)});
  }
  return out;
}

std::vector<std::uint64_t> drain_candidates(const segment_layout& layout, const std::set<std::uint64_t>& drained) {
  std::vector<std::uint64_t> out;
  for (const auto& [id, s] : layout.segments) {
    if (!s.active() && !drained.contains(id) && assignable(layout, s, drained)) out.push_back(id);
  }
  return out;
}

}  // namespace magnetar::broker::scalable
