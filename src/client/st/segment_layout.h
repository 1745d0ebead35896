// segment_layout: one snapshot of a scalable topic's segment DAG as a client uses it,
// built from the ScalableTopicDAG the broker pushes (every push is a full snapshot).
//
// Each segment covers an inclusive range of the 16-bit key-hash ring and is stored on an
// ordinary topic, named segment://<tenant>/<namespace>/<topic>/<start>-<end>-<id> (hash
// bounds as 4 lower-case hex digits, id in decimal), or on the persistent:// topic it
// wraps when the segment is a legacy one (a not-yet-migrated regular topic). ACTIVE
// segments take new messages; SEALED ones only hold what was written before a split or
// merge. Active segments are kept sorted by hash_start (the order the router searches),
// sealed ones by id.
//
// from_proto refuses a resolved name that is not topic:// (invalid_topic_name) and a
// segment whose range is outside 0..0xFFFF or reversed, or a repeated id (protocol_error:
// the broker sent a DAG this client can't use).
// An immutable value; share it as shared_ptr<const segment_layout> across threads.
#pragma once

#include "base/result.h"
#include "proto/pulsar_api.pb.h"

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace magnetar::st::detail {

inline constexpr std::uint32_t max_hash = 0xFFFF;

struct segment_info {
  std::uint64_t id = 0;
  std::uint32_t hash_start = 0;  // inclusive
  std::uint32_t hash_end = 0;    // inclusive
  bool sealed = false;
  std::vector<std::uint64_t> parents;
  std::vector<std::uint64_t> children;
  std::uint64_t created_at_epoch = 0;
  // The persistent:// topic a legacy segment wraps; empty for a segment:// one.
  std::string legacy_topic;
  // PIP-486 entry-bucket split points (ascending starts of buckets 1..N-1); empty: one bucket.
  std::vector<std::uint32_t> entry_bucket_splits;
  // The topic the client attaches to: the segment:// name, or legacy_topic.
  std::string topic;

  bool is_legacy() const { return !legacy_topic.empty(); }
  bool contains(std::uint32_t hash) const { return hash_start <= hash && hash <= hash_end; }
};

struct broker_urls {
  std::string url;
  std::string url_tls;  // empty when the broker gave none
};

class segment_layout {
 public:
  // An empty layout (epoch 0, no segments): the "old" layout before the first one.
  segment_layout() = default;

  static result<segment_layout> from_proto(const proto::ScalableTopicDAG& dag, std::string_view resolved_topic);

  // "segment://t/n/x/%04x-%04x-<id>" for the scalable topic "topic://t/n/x".
  static std::string segment_topic_name(std::string_view scalable_topic, std::uint32_t hash_start,
                                        std::uint32_t hash_end, std::uint64_t id);

  std::uint64_t epoch() const { return _epoch; }
  // topic://t/n/x
  const std::string& topic() const { return _topic; }
  bool empty() const { return _active.empty() && _sealed.empty(); }
  // Sorted by hash_start.
  const std::vector<segment_info>& active() const { return _active; }
  // Sorted by id.
  const std::vector<segment_info>& sealed() const { return _sealed; }
  // The segment with this id, active or sealed; nullptr when the DAG has none.
  const segment_info* find(std::uint64_t id) const;

  // Where the controller (the broker owning the DAG) is, when the broker said.
  const std::optional<std::string>& controller_url() const { return _controller_url; }
  const std::optional<std::string>& controller_url_tls() const { return _controller_url_tls; }
  // The broker serving a segment, when the DAG names one.
  std::optional<broker_urls> broker_for(std::uint64_t segment_id) const;

 private:
  std::uint64_t _epoch = 0;
  std::string _topic;
  std::vector<segment_info> _active;
  std::vector<segment_info> _sealed;
  std::map<std::uint64_t, broker_urls> _brokers;
  std::optional<std::string> _controller_url;
  std::optional<std::string> _controller_url_tls;
};

}  // namespace magnetar::st::detail
