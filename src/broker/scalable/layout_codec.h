// layout_codec: a segment_layout as the JSON kept in the metadata store and answered by
// GET /admin/v2/scalable/... (upstream's ScalableTopicMetadata field names, so
// pulsar-admin reads it), and as the ScalableTopicDAG that clients receive.
// Pure functions; thread-safe.
#pragma once

#include "base/result.h"
#include "broker/scalable/assignment.h"
#include "broker/scalable/segment_layout.h"
#include "proto/pulsar_api.pb.h"

#include <nlohmann/json.hpp>

#include <string_view>

namespace magnetar::broker::scalable {

nlohmann::json to_json(const segment_layout& layout);
// errc::invalid_request naming what is wrong (a stored value we cannot read).
result<segment_layout> layout_from_json(std::string_view text);

// The DAG for a client: every segment, the controller's URL when known, and where the
// active segments are served.
void fill_dag(const segment_layout& layout, const std::string& broker_url, proto::ScalableTopicDAG& dag);

void fill_assignment(const consumer_assignment& assignment, proto::ScalableConsumerAssignment& out);

}  // namespace magnetar::broker::scalable
