#include "broker/api/errc.h"

namespace magnetar::broker {

std::string_view describe(errc e) {
  switch (e) {
    case errc::ok: return "success";
    case errc::topic_not_found: return "topic not found";
    case errc::subscription_not_found: return "subscription not found";
    case errc::namespace_not_found: return "namespace not found";
    case errc::tenant_not_found: return "tenant not found";
    case errc::conflict: return "already exists";
    case errc::precondition_failed: return "in use";
    case errc::not_allowed: return "not allowed";
    case errc::invalid_request: return "invalid request";
    case errc::consumer_busy: return "consumer busy";
    case errc::producer_busy: return "producer busy";
    case errc::producer_fenced: return "producer fenced";
    case errc::service_not_ready: return "service not ready";
    case errc::persistence_error: return "persistence error";
    case errc::metadata_error: return "metadata error";
    case errc::too_many_requests: return "too many requests";
    case errc::topic_terminated: return "topic terminated";
    case errc::unsupported_version: return "unsupported version";
    case errc::consumer_assign_error: return "consumer assign error";
    case errc::producer_blocked_quota_hold:
    case errc::producer_blocked_quota_exception: return "backlog quota exceeded";
    case errc::not_authorized: return "not authorized";
  }
  return "unknown broker error";
}

}  // namespace magnetar::broker
