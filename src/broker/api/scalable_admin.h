// scalable_admin: what the admin REST API asks of scalable topics
// (/admin/v2/scalable/...). The broker's scalable-topic service implements it; the REST
// layer only translates paths and statuses. Errors use broker::errc: topic_not_found
// (404), conflict (409), precondition_failed (412: not active, not adjacent, bad count).
// Calls may come from any thread that runs a coroutine.
#pragma once

#include "base/result.h"
#include "io/asio.h"
#include "wire/topic_name.h"

#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace magnetar::broker {

class scalable_admin {
 public:
  virtual ~scalable_admin() = default;

  virtual awaitable<result<void>> create_scalable(wire::topic_name topic, int segments,
                                                  std::map<std::string, std::string> properties) = 0;
  // The layout as upstream's ScalableTopicMetadata JSON text.
  virtual awaitable<result<std::string>> scalable_metadata(wire::topic_name topic) = 0;
  // topic://... names.
  virtual awaitable<result<std::vector<std::string>>> list_scalable(std::string namespace_name) = 0;
  virtual awaitable<result<void>> delete_scalable(wire::topic_name topic) = 0;
  virtual awaitable<result<void>> split_segment(wire::topic_name topic, std::uint64_t segment) = 0;
  virtual awaitable<result<void>> merge_segments(wire::topic_name topic, std::uint64_t first, std::uint64_t second) = 0;
};

}  // namespace magnetar::broker
