#include "broker/scalable/segment_layout.h"

#include "broker/api/errc.h"
#include "wire/topic_name.h"

#include <fmt/format.h>

#include <algorithm>

namespace magnetar::broker::scalable {

result<segment_layout> segment_layout::initial(int segments, std::int64_t now_ms) {
  if (segments < 1) return fail(errc::precondition_failed, "numInitialSegments must be >= 1");
  if (segments > static_cast<int>(hash_ring_max) + 1) {
    return fail(errc::precondition_failed, fmt::format("numInitialSegments must be <= {}", hash_ring_max + 1));
  }
  segment_layout layout;
  const std::uint32_t width = (hash_ring_max + 1) / static_cast<std::uint32_t>(segments);
  for (int i = 0; i < segments; ++i) {
    segment_info s;
    s.id = static_cast<std::uint64_t>(i);
    s.range.start = static_cast<std::uint32_t>(i) * width;
    s.range.end = i == segments - 1 ? hash_ring_max : s.range.start + width - 1;
    s.created_at_ms = now_ms;
    layout.segments.emplace(s.id, s);
  }
  layout.next_segment_id = static_cast<std::uint64_t>(segments);
  return layout;
}

const segment_info* segment_layout::find(std::uint64_t id) const {
  auto it = segments.find(id);
  return it == segments.end() ? nullptr : &it->second;
}

std::vector<const segment_info*> segment_layout::active() const {
  std::vector<const segment_info*> out;
  for (const auto& [id, s] : segments) {
    if (s.active()) out.push_back(&s);
  }
  std::sort(out.begin(), out.end(), [](auto* a, auto* b) { return a->range.start < b->range.start; });
  return out;
}

namespace {

segment_info child_of(const segment_layout& layout, std::uint64_t id, hash_range range, std::int64_t now_ms) {
  segment_info child;
  child.id = id;
  child.range = range;
  child.created_at_epoch = layout.epoch + 1;
  child.created_at_ms = now_ms;
  return child;
}

void seal(segment_info& parent, const segment_layout& before, std::vector<std::uint64_t> children,
          std::int64_t now_ms) {
  parent.state = segment_state::sealed;
  parent.children = std::move(children);
  parent.sealed_at_epoch = static_cast<std::int64_t>(before.epoch + 1);
  parent.sealed_at_ms = now_ms;
}

}  // namespace

result<segment_layout::change> segment_layout::split(std::uint64_t id, std::int64_t now_ms) const {
  const auto* parent = find(id);
  if (parent == nullptr) return fail(errc::topic_not_found, fmt::format("Segment not found: {}", id));
  if (!parent->active()) return fail(errc::precondition_failed, fmt::format("Cannot split non-active segment: {}", id));
  if (parent->range.size() < 2) return fail(errc::precondition_failed, "Cannot split range of size 1");
  const auto mid = parent->range.start + (parent->range.end - parent->range.start) / 2;
  change out{*this, {id}, {next_segment_id, next_segment_id + 1}};
  auto low = child_of(*this, next_segment_id, {parent->range.start, mid}, now_ms);
  auto high = child_of(*this, next_segment_id + 1, {mid + 1, parent->range.end}, now_ms);
  low.parents = high.parents = {id};
  seal(out.layout.segments.at(id), *this, out.created, now_ms);
  out.layout.segments.emplace(low.id, low);
  out.layout.segments.emplace(high.id, high);
  out.layout.next_segment_id += 2;
  out.layout.epoch += 1;
  return out;
}

result<segment_layout::change> segment_layout::merge(std::uint64_t first, std::uint64_t second,
                                                     std::int64_t now_ms) const {
  const auto* a = find(first);
  const auto* b = find(second);
  if (a == nullptr || b == nullptr) {
    return fail(errc::topic_not_found, fmt::format("Segment not found: {}", a == nullptr ? first : second));
  }
  if (!a->active() || !b->active()) return fail(errc::precondition_failed, "Both segments must be active");
  if (first == second || !a->range.adjacent_to(b->range)) {
    return fail(errc::precondition_failed,
                fmt::format("Segments are not adjacent: [{:04x}, {:04x}] and [{:04x}, {:04x}]", a->range.start,
                            a->range.end, b->range.start, b->range.end));
  }
  change out{*this, {first, second}, {next_segment_id}};
  auto merged = child_of(*this, next_segment_id,
                         {std::min(a->range.start, b->range.start), std::max(a->range.end, b->range.end)}, now_ms);
  merged.parents = {first, second};
  seal(out.layout.segments.at(first), *this, out.created, now_ms);
  seal(out.layout.segments.at(second), *this, out.created, now_ms);
  out.layout.segments.emplace(merged.id, merged);
  out.layout.next_segment_id += 1;
  out.layout.epoch += 1;
  return out;
}

std::string segment_descriptor(const segment_info& segment) {
  return wire::segment_descriptor(segment.range.start, segment.range.end, segment.id);
}

std::string segment_topic_name(const std::string& tenant, const std::string& namespace_part, const std::string& local,
                               const segment_info& segment) {
  return wire::segment_topic_name(fmt::format("{}/{}/{}", tenant, namespace_part, local), segment.range.start,
                                  segment.range.end, segment.id);
}

}  // namespace magnetar::broker::scalable
