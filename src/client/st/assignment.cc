#include "client/st/assignment.h"

#include "client/st/segment_layout.h"
#include "magnetar/errc.h"

#include <fmt/format.h>

#include <algorithm>

namespace magnetar::st::detail {

result<assignment> assignment::from_proto(const proto::ScalableConsumerAssignment& a) {
  assignment out;
  out.layout_epoch = a.layout_epoch();
  for (const auto& s : a.segments()) {
    if (s.hash_start() > max_hash || s.hash_end() > max_hash || s.hash_end() < s.hash_start()) {
      return fail(client_errc::protocol_error,
                  fmt::format("assigned segment {} has the hash range [{:#x}, {:#x}], not within 0x0-0xffff",
                              s.segment_id(), s.hash_start(), s.hash_end()));
    }
    if (s.segment_topic().empty()) {
      return fail(client_errc::protocol_error, fmt::format("assigned segment {} has no topic", s.segment_id()));
    }
    assigned_segment seg{s.segment_id(), s.hash_start(), s.hash_end(), s.segment_topic(), {}};
    for (const auto& r : s.bucket_ranges()) {
      if (r.start() < 0 || r.end() < r.start() || static_cast<std::uint32_t>(r.end()) > max_hash) {
        return fail(client_errc::protocol_error,
                    fmt::format("assigned segment {} has the bucket range [{}, {}], not within 0-65535", s.segment_id(),
                                r.start(), r.end()));
      }
      seg.bucket_ranges.push_back({static_cast<std::uint32_t>(r.start()), static_cast<std::uint32_t>(r.end())});
    }
    out.segments.push_back(std::move(seg));
  }
  std::sort(out.segments.begin(), out.segments.end(),
            [](const assigned_segment& x, const assigned_segment& y) { return x.id < y.id; });
  auto repeated = std::adjacent_find(out.segments.begin(), out.segments.end(),
                                     [](const assigned_segment& x, const assigned_segment& y) { return x.id == y.id; });
  if (repeated != out.segments.end()) {
    return fail(client_errc::protocol_error, fmt::format("segment {} is assigned twice", repeated->id));
  }
  return out;
}

const assigned_segment* assignment::find(std::uint64_t id) const {
  auto it = std::find_if(segments.begin(), segments.end(), [&](const assigned_segment& s) { return s.id == id; });
  return it == segments.end() ? nullptr : &*it;
}

bool assignment::has_bucket_ranges() const {
  return std::any_of(segments.begin(), segments.end(),
                     [](const assigned_segment& s) { return !s.bucket_ranges.empty(); });
}

assignment_diff diff(const assignment& before, const assignment& after) {
  assignment_diff out;
  for (const auto& s : before.segments) {
    const auto* now = after.find(s.id);
    if (now == nullptr || *now != s) out.release.push_back(s);
  }
  for (const auto& s : after.segments) {
    const auto* was = before.find(s.id);
    if (was == nullptr || *was != s) out.attach.push_back(s);
  }
  return out;
}

bool assignment_gate::offer(assignment a) {
  std::lock_guard serial(_deliver);
  listener l;
  std::optional<assignment> previous;
  assignment applied;
  {
    std::lock_guard lock(_mutex);
    if (_current && a.layout_epoch < _current->layout_epoch) return false;
    previous = std::move(_current);
    _current = std::move(a);
    applied = *_current;
    l = _listener;
  }
  if (l) l(applied, previous);
  return true;
}

void assignment_gate::set_listener(listener l) {
  std::lock_guard serial(_deliver);
  std::optional<assignment> current;
  {
    std::lock_guard lock(_mutex);
    _listener = l;
    current = _current;
  }
  if (l && current) l(*current, std::nullopt);
}

void assignment_gate::clear_listener() {
  std::lock_guard lock(_mutex);
  _listener = nullptr;
}

std::optional<assignment> assignment_gate::current() const {
  std::lock_guard lock(_mutex);
  return _current;
}

std::int64_t assignment_gate::epoch() const {
  std::lock_guard lock(_mutex);
  return _current ? static_cast<std::int64_t>(_current->layout_epoch) : -1;
}

}  // namespace magnetar::st::detail
