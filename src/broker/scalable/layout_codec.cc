#include "broker/scalable/layout_codec.h"

#include "broker/api/errc.h"

#include <fmt/format.h>

namespace magnetar::broker::scalable {

using nlohmann::json;

namespace {

std::string_view state_name(segment_state s) { return s == segment_state::active ? "ACTIVE" : "SEALED"; }

json segment_json(const segment_info& s) {
  return json{{"segmentId", s.id},
              {"hashRange", {{"start", s.range.start}, {"end", s.range.end}}},
              {"state", state_name(s.state)},
              {"parentIds", s.parents},
              {"childIds", s.children},
              {"createdAtEpoch", s.created_at_epoch},
              {"sealedAtEpoch", s.sealed_at_epoch},
              {"createdAtMs", s.created_at_ms},
              {"sealedAtMs", s.sealed_at_ms},
              {"legacyTopicName", nullptr},
              {"entryBucketSplits", json::array()}};
}

result<segment_info> segment_from(const json& j) {
  segment_info s;
  s.id = j.at("segmentId").get<std::uint64_t>();
  s.range.start = j.at("hashRange").at("start").get<std::uint32_t>();
  s.range.end = j.at("hashRange").at("end").get<std::uint32_t>();
  const auto state = j.at("state").get<std::string>();
  if (state != "ACTIVE" && state != "SEALED") {
    return fail(errc::invalid_request, fmt::format("segment {}: unknown state '{}'", s.id, state));
  }
  if (s.range.end > hash_ring_max || s.range.start > s.range.end) {
    return fail(errc::invalid_request, fmt::format("segment {}: bad hash range", s.id));
  }
  s.state = state == "ACTIVE" ? segment_state::active : segment_state::sealed;
  s.parents = j.value("parentIds", std::vector<std::uint64_t>{});
  s.children = j.value("childIds", std::vector<std::uint64_t>{});
  s.created_at_epoch = j.value("createdAtEpoch", std::uint64_t{0});
  s.sealed_at_epoch = j.value("sealedAtEpoch", std::int64_t{-1});
  s.created_at_ms = j.value("createdAtMs", std::int64_t{0});
  s.sealed_at_ms = j.value("sealedAtMs", std::int64_t{-1});
  return s;
}

}  // namespace

json to_json(const segment_layout& layout) {
  json segments = json::object();
  for (const auto& [id, s] : layout.segments) segments[std::to_string(id)] = segment_json(s);
  return json{{"epoch", layout.epoch},
              {"nextSegmentId", layout.next_segment_id},
              {"segments", std::move(segments)},
              {"properties", layout.properties},
              {"autoScalePolicy", nullptr}};
}

result<segment_layout> layout_from_json(std::string_view text) {
  auto j = json::parse(text, nullptr, false);
  if (j.is_discarded() || !j.is_object()) return fail(errc::invalid_request, "scalable topic metadata is not JSON");
  try {
    segment_layout layout;
    layout.epoch = j.at("epoch").get<std::uint64_t>();
    layout.next_segment_id = j.at("nextSegmentId").get<std::uint64_t>();
    for (const auto& [key, value] : j.at("segments").items()) {
      MAGNETAR_TRY(s, segment_from(value));
      layout.segments.emplace(s.id, std::move(s));
    }
    if (j.contains("properties") && j["properties"].is_object()) {
      layout.properties = j["properties"].get<std::map<std::string, std::string>>();
    }
    return layout;
  } catch (const json::exception& e) {
    return fail(errc::invalid_request, fmt::format("scalable topic metadata: {}", e.what()));
  }
}

void fill_dag(const segment_layout& layout, const std::string& broker_url, proto::ScalableTopicDAG& dag) {
  dag.set_epoch(layout.epoch);
  for (const auto& [id, s] : layout.segments) {
    auto& out = *dag.add_segments();
    out.set_segment_id(id);
    out.set_hash_start(s.range.start);
    out.set_hash_end(s.range.end);
    out.set_state(s.active() ? proto::ACTIVE : proto::SEALED);
    for (auto p : s.parents) out.add_parent_ids(p);
    for (auto c : s.children) out.add_child_ids(c);
    out.set_created_at_epoch(s.created_at_epoch);
    if (s.sealed_at_epoch >= 0) out.set_sealed_at_epoch(static_cast<std::uint64_t>(s.sealed_at_epoch));
    out.set_created_at_ms(static_cast<std::uint64_t>(s.created_at_ms));
    if (s.sealed_at_ms >= 0) out.set_sealed_at_ms(static_cast<std::uint64_t>(s.sealed_at_ms));
    if (s.active()) {
      auto& where = *dag.add_segment_brokers();
      where.set_segment_id(id);
      where.set_broker_url(broker_url);
    }
  }
  dag.set_controller_broker_url(broker_url);
}

void fill_assignment(const consumer_assignment& assignment, proto::ScalableConsumerAssignment& out) {
  out.set_layout_epoch(assignment.layout_epoch);
  for (const auto& s : assignment.segments) {
    auto& segment = *out.add_segments();
    segment.set_segment_id(s.id);
    segment.set_hash_start(s.range.start);
    segment.set_hash_end(s.range.end);
    segment.set_segment_topic(s.topic);
  }
}

}  // namespace magnetar::broker::scalable
