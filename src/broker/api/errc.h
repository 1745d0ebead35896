// Errors of the broker: what a topic, subscription or request can fail with.
//
// Each maps to one of the protocol's ServerError values (protocol_error.h) and to an
// HTTP status in the admin API. Values are stable. Thread-safety: plain values.
#pragma once

#include "base/error_category.h"

#include <string_view>
#include <system_error>

namespace magnetar::broker {

enum class errc {
  ok = 0,
  topic_not_found,  // no such topic, and auto-creation is off or not allowed here
  subscription_not_found,
  namespace_not_found,
  tenant_not_found,
  conflict,             // it exists already
  precondition_failed,  // it is in use (consumers, producers) and force is off
  not_allowed,          // the request is valid but the broker's settings forbid it
  invalid_request,      // a field is missing or out of range
  consumer_busy,        // exclusive subscription taken, or a consumer id reused
  producer_busy,        // exclusive producer present, or a producer name in use
  producer_fenced,      // a newer exclusive producer took over
  service_not_ready,    // the topic is closing or loading; retry after a lookup
  persistence_error,    // storage failed the write or read
  metadata_error,       // the metadata store failed
  too_many_requests,    // a pending-request limit is reached
  topic_terminated,
  unsupported_version,
  consumer_assign_error,  // a Key_Shared consumer's hash ranges clash with another's
  // The topic's backlog is over its quota: a producer may not attach. Two codes because
  // upstream tells the client which policy applies (hold: it retries; exception: fails).
  producer_blocked_quota_hold,
  producer_blocked_quota_exception,
  not_authorized,  // the client's role lacks the permission (authorizationEnabled)
};

constexpr std::string_view category_name(errc) { return "magnetar.broker"; }
std::string_view describe(errc e);

inline std::error_code make_error_code(errc e) { return base::make_enum_error_code(e); }

}  // namespace magnetar::broker

template <>
struct std::is_error_code_enum<magnetar::broker::errc> : std::true_type {};
