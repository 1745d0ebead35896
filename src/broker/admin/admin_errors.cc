#include "broker/admin/admin_errors.h"

#include "broker/api/errc.h"
#include "io/errc.h"
#include "meta/errc.h"
#include "wire/errc.h"

namespace magnetar::broker::admin {

int http_status(const error& e) {
  const auto& code = e.code();
  if (code.category() == std::error_code(errc::ok).category()) {
    switch (static_cast<errc>(code.value())) {
      case errc::topic_not_found:
      case errc::subscription_not_found:
      case errc::namespace_not_found:
      case errc::tenant_not_found: return 404;
      case errc::conflict: return 409;
      case errc::precondition_failed: return 412;
      case errc::not_allowed: return 405;
      case errc::invalid_request: return 400;
      case errc::service_not_ready: return 503;
      case errc::too_many_requests: return 429;
      case errc::not_authorized: return 401;
      default: return 500;
    }
  }
  if (e == wire::errc::invalid_topic_name) return 412;
  if (e == meta::errc::not_found) return 404;
  if (e == meta::errc::bad_version) return 409;
  if (e == io::errc::gate_closed) return 503;
  return 500;
}

http_response error_to_response(const error& e) {
  return error_response(http_status(e), e.detail().empty() ? e.code().message() : e.detail());
}

}  // namespace magnetar::broker::admin
