// admin_errors: how an error of the broker, the metadata store or a topic name becomes
// an HTTP status and Pulsar's error body {"reason": "..."}.
//
//   broker::errc  topic/subscription/namespace/tenant_not_found 404, conflict 409,
//                 precondition_failed 412, not_allowed 405, invalid_request 400,
//                 service_not_ready 503, too_many_requests 429, others 500
//   wire::errc::invalid_topic_name 412 (Pulsar's "Topic name is not valid")
//   meta::errc    not_found 404, bad_version 409, others 500
//   io::errc::gate_closed (stopping) 503
// Pure functions; thread-safe.
#pragma once

#include "base/error.h"
#include "broker/admin/http_types.h"

namespace magnetar::broker::admin {

int http_status(const error& e);
// The detail when there is one (Pulsar's reason strings), else the code's message.
http_response error_to_response(const error& e);

}  // namespace magnetar::broker::admin
