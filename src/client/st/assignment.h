// assignment: the segments the controller gives one stream consumer, and the gate every
// assignment passes through before the consumer acts on it.
//
// The controller numbers assignments with the layout epoch they were computed from. The
// first one comes in the SCALABLE_TOPIC_SUBSCRIBE response, later ones as
// SCALABLE_TOPIC_ASSIGNMENT_UPDATE pushes, and a re-registration after a reconnect
// answers with one again, so they can arrive out of order across connections. The gate
// drops an assignment older than the one applied (layout_epoch < current; an equal
// epoch is applied, as upstream: a re-push after a reattach carries the same epoch) and
// hands each applied one to its listener with the previous one, whose difference
// (diff()) says which segments to let go and which to attach. A listener set after an
// assignment was applied is called with it at once (replay), so appliers must be
// idempotent.
//
// Thread-safe. Listener calls never overlap and come in the order the assignments were
// applied; the listener may call clear_listener (its owner going away), not offer or
// set_listener.
#pragma once

#include "base/result.h"
#include "proto/pulsar_api.pb.h"

#include <cstdint>
#include <functional>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

namespace magnetar::st::detail {

struct bucket_range {
  std::uint32_t start = 0;  // inclusive, 16-bit
  std::uint32_t end = 0;
  friend bool operator==(const bucket_range&, const bucket_range&) = default;
};

struct assigned_segment {
  std::uint64_t id = 0;
  std::uint32_t hash_start = 0;
  std::uint32_t hash_end = 0;
  // The topic to attach to: segment://..., or a legacy persistent:// one.
  std::string topic;
  // PIP-486: the entry buckets this consumer owns on a shared segment; empty: the whole
  // segment (attached Exclusive).
  std::vector<bucket_range> bucket_ranges;
  friend bool operator==(const assigned_segment&, const assigned_segment&) = default;
};

struct assignment {
  std::uint64_t layout_epoch = 0;
  // Sorted by id.
  std::vector<assigned_segment> segments;

  // Errors: protocol_error (a hash or bucket range outside 0..0xFFFF or reversed, no
  // segment topic, a repeated segment).
  static result<assignment> from_proto(const proto::ScalableConsumerAssignment& a);
  const assigned_segment* find(std::uint64_t id) const;
  bool has_bucket_ranges() const;
};

struct assignment_diff {
  // In the old assignment and not in the new one, or changed (topic, range, buckets).
  std::vector<assigned_segment> release;
  // In the new one and not in the old, or changed.
  std::vector<assigned_segment> attach;
};
assignment_diff diff(const assignment& before, const assignment& after);

class assignment_gate {
 public:
  // (applied, previous): previous is empty for the first assignment and for a replay.
  using listener = std::function<void(const assignment& applied, const std::optional<assignment>& previous)>;

  // Applies `a` unless it is older than the current one; true when applied.
  bool offer(assignment a);
  // Replaces the listener; replays the current assignment to it, if there is one.
  void set_listener(listener l);
  void clear_listener();

  std::optional<assignment> current() const;
  // -1 before the first assignment.
  std::int64_t epoch() const;

 private:
  // Held across listener calls (taken before _mutex), so they come one at a time in order.
  std::mutex _deliver;
  mutable std::mutex _mutex;
  std::optional<assignment> _current;
  listener _listener;
};

}  // namespace magnetar::st::detail
