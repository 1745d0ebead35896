#include "client/st/segment_layout.h"

#include "magnetar/errc.h"
#include "wire/topic_name.h"

#include <fmt/format.h>

#include <algorithm>
#include <set>

namespace magnetar::st::detail {

namespace {
constexpr std::string_view scalable_scheme = "topic://";
}

std::string segment_layout::segment_topic_name(std::string_view scalable_topic, std::uint32_t hash_start,
                                               std::uint32_t hash_end, std::uint64_t id) {
  return wire::segment_topic_name(scalable_topic, hash_start, hash_end, id);
}

result<segment_layout> segment_layout::from_proto(const proto::ScalableTopicDAG& dag, std::string_view resolved_topic) {
  if (!resolved_topic.starts_with(scalable_scheme)) {
    return fail(client_errc::invalid_topic_name,
                fmt::format("'{}' is not a scalable topic (topic://tenant/namespace/name)", resolved_topic));
  }
  auto parsed = wire::topic_name::parse(resolved_topic);
  if (!parsed) return fail(client_errc::invalid_topic_name, parsed.error().detail());

  segment_layout out;
  out._epoch = dag.epoch();
  out._topic = std::string(resolved_topic);
  std::set<std::uint64_t> seen;
  for (const auto& s : dag.segments()) {
    if (s.hash_start() > max_hash || s.hash_end() > max_hash || s.hash_end() < s.hash_start()) {
      return fail(client_errc::protocol_error,
                  fmt::format("{}: segment {} has the hash range [{:#x}, {:#x}], not within 0x0-0xffff", resolved_topic,
                              s.segment_id(), s.hash_start(), s.hash_end()));
    }
    if (!seen.insert(s.segment_id()).second) {
      return fail(client_errc::protocol_error,
                  fmt::format("{}: segment {} appears twice in the layout", resolved_topic, s.segment_id()));
    }
    segment_info info;
    info.id = s.segment_id();
    info.hash_start = s.hash_start();
    info.hash_end = s.hash_end();
    info.sealed = s.state() == proto::SEALED;
    info.parents.assign(s.parent_ids().begin(), s.parent_ids().end());
    info.children.assign(s.child_ids().begin(), s.child_ids().end());
    info.created_at_epoch = s.created_at_epoch();
    info.legacy_topic = s.legacy_topic_name();
    info.entry_bucket_splits.assign(s.entry_bucket_splits().begin(), s.entry_bucket_splits().end());
    info.topic = info.is_legacy() ? info.legacy_topic
                                  : segment_topic_name(resolved_topic, info.hash_start, info.hash_end, info.id);
    (info.sealed ? out._sealed : out._active).push_back(std::move(info));
  }
  std::sort(out._active.begin(), out._active.end(), [](const segment_info& a, const segment_info& b) {
    return a.hash_start != b.hash_start ? a.hash_start < b.hash_start : a.id < b.id;
  });
  std::sort(out._sealed.begin(), out._sealed.end(),
            [](const segment_info& a, const segment_info& b) { return a.id < b.id; });
  for (const auto& b : dag.segment_brokers()) {
    out._brokers[b.segment_id()] = broker_urls{b.broker_url(), b.broker_url_tls()};
  }
  if (dag.has_controller_broker_url() && !dag.controller_broker_url().empty()) {
    out._controller_url = dag.controller_broker_url();
  }
  if (dag.has_controller_broker_url_tls() && !dag.controller_broker_url_tls().empty()) {
    out._controller_url_tls = dag.controller_broker_url_tls();
  }
  return out;
}

const segment_info* segment_layout::find(std::uint64_t id) const {
  for (const auto* list : {&_active, &_sealed}) {
    auto it = std::find_if(list->begin(), list->end(), [&](const segment_info& s) { return s.id == id; });
    if (it != list->end()) return &*it;
  }
  return nullptr;
}

std::optional<broker_urls> segment_layout::broker_for(std::uint64_t segment_id) const {
  auto it = _brokers.find(segment_id);
  if (it == _brokers.end()) return std::nullopt;
  return it->second;
}

}  // namespace magnetar::st::detail
