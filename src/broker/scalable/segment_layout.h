// segment_layout: a scalable topic's DAG of segments over the 16-bit key-hash ring,
// and the changes that grow it (upstream's ScalableTopicMetadata / SegmentLayout).
//
// Each segment owns an inclusive range [start, end] of 0x0000-0xFFFF and is backed by
// an ordinary topic, segment://t/n/x/<start %04x>-<end %04x>-<id>. The ACTIVE segments
// (the DAG's leaves) cover the ring exactly once; producers write only to them. A split
// seals one active segment and adds two children over its halves; a merge seals two
// adjacent active segments and adds one child over their union. Every change adds 1 to
// the epoch; ids come from next_segment_id and are never reused.
//
// Validation failures carry upstream's messages. Plain values; pure functions.
#pragma once

#include "base/result.h"

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace magnetar::broker::scalable {

inline constexpr std::uint32_t hash_ring_max = 0xFFFF;

struct hash_range {
  std::uint32_t start = 0;
  std::uint32_t end = hash_ring_max;

  std::uint32_t size() const { return end - start + 1; }
  bool contains(std::uint32_t hash) const { return start <= hash && hash <= end; }
  bool adjacent_to(const hash_range& other) const { return end + 1 == other.start || other.end + 1 == start; }
  friend bool operator==(const hash_range&, const hash_range&) = default;
};

enum class segment_state { active, sealed };

struct segment_info {
  std::uint64_t id = 0;
  hash_range range;
  segment_state state = segment_state::active;
  std::vector<std::uint64_t> parents;
  std::vector<std::uint64_t> children;
  std::uint64_t created_at_epoch = 0;
  std::int64_t sealed_at_epoch = -1;  // -1 while active (upstream's convention)
  std::int64_t created_at_ms = 0;
  std::int64_t sealed_at_ms = -1;

  bool active() const { return state == segment_state::active; }
  friend bool operator==(const segment_info&, const segment_info&) = default;
};

struct segment_layout {
  std::uint64_t epoch = 0;
  std::uint64_t next_segment_id = 0;
  std::map<std::uint64_t, segment_info> segments;  // the whole DAG, sealed ones too
  std::map<std::string, std::string> properties;

  // N active segments of (nearly) equal width; the last absorbs the remainder.
  static result<segment_layout> initial(int segments, std::int64_t now_ms);

  const segment_info* find(std::uint64_t id) const;
  // Active segments by range start (the routing order).
  std::vector<const segment_info*> active() const;

  // The layout after the change, and the ids of the segments it created.
  struct change;
  result<change> split(std::uint64_t id, std::int64_t now_ms) const;
  result<change> merge(std::uint64_t first, std::uint64_t second, std::int64_t now_ms) const;

  friend bool operator==(const segment_layout&, const segment_layout&) = default;
};

struct segment_layout::change {
  segment_layout layout;
  std::vector<std::uint64_t> sealed;   // parents
  std::vector<std::uint64_t> created;  // children
};

// "<start %04x>-<end %04x>-<id>", the last part of a segment topic's name.
std::string segment_descriptor(const segment_info& segment);
// segment://<tenant>/<namespace>/<local>/<descriptor>, for topic://<tenant>/<namespace>/<local>.
std::string segment_topic_name(const std::string& tenant, const std::string& namespace_part, const std::string& local,
                               const segment_info& segment);

}  // namespace magnetar::broker::scalable
