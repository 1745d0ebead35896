// assignment: which segments each stream consumer of a subscription reads (upstream's
// subscription coordinator rule, computed from scratch on every change so that any
// broker computes the same answer from the same inputs).
//
//   1. Assignable segments: those whose parents (still in the layout) have all drained
//      for this subscription. Sealed ones count too, so a subscription that starts at
//      the earliest replays the data written before a split; a child waits for its
//      parents, so a key's older messages are read before its newer ones. (Upstream
//      withholds only active children; a sealed child of an undrained parent is
//      withheld here as well, for the same ordering reason.)
//   2. Sorted by hash range (start, end), then id; consumers sorted by name.
//   3. The k-th segment goes to consumer k mod C. Every consumer gets an entry, maybe
//      empty, stamped with the layout's epoch.
// Pure functions; thread-safe.
#pragma once

#include "broker/scalable/segment_layout.h"

#include <cstdint>
#include <map>
#include <set>
#include <string>
#include <vector>

namespace magnetar::broker::scalable {

struct assigned_segment {
  std::uint64_t id = 0;
  hash_range range;
  std::string topic;  // segment://...
  friend bool operator==(const assigned_segment&, const assigned_segment&) = default;
};

struct consumer_assignment {
  std::uint64_t layout_epoch = 0;
  std::vector<assigned_segment> segments;
  friend bool operator==(const consumer_assignment&, const consumer_assignment&) = default;
};

// Where the segment topics live: topic://<tenant>/<namespace>/<local>.
struct topic_parts {
  std::string tenant;
  std::string namespace_part;
  std::string local;
};

bool assignable(const segment_layout& layout, const segment_info& segment, const std::set<std::uint64_t>& drained);

// By consumer name.
std::map<std::string, consumer_assignment> compute_assignments(const segment_layout& layout, const topic_parts& topic,
                                                               const std::set<std::string>& consumers,
                                                               const std::set<std::uint64_t>& drained);

// Sealed segments not known drained whose drain would change an assignment: the ones
// assignable now (their consumers may finish them).
std::vector<std::uint64_t> drain_candidates(const segment_layout& layout, const std::set<std::uint64_t>& drained);

}  // namespace magnetar::broker::scalable
