#include "broker/admin/request_names.h"

#include "wire/errc.h"

#include <fmt/format.h>

namespace magnetar::broker::admin::detail {

result<wire::topic_name> topic_from(const http::incoming_request& request) {
  const auto& local = request.param("topic");
  if (local == "." || local == "..") return fail(wire::errc::invalid_topic_name, "Topic name is not valid");
  const bool non_persistent = request.target.starts_with("/admin/v2/non-persistent/");
  return wire::topic_name::parse(fmt::format("{}://{}/{}/{}", non_persistent ? "non-persistent" : "persistent",
                                             request.param("tenant"), request.param("namespace"), local));
}

std::string namespace_from(const http::incoming_request& request) {
  return request.param("tenant") + "/" + request.param("namespace");
}

std::optional<http::http_response> invalid_names(const http::incoming_request& request) {
  for (const char* part : {"tenant", "namespace"}) {
    auto it = request.params.find(part);
    if (it != request.params.end() && !wire::is_valid_name_part(it->second)) {
      return http::error_response(412, fmt::format("{} name is not valid: '{}'",
                                                   std::string(part) == "tenant" ? "Tenant" : "Namespace", it->second));
    }
  }
  return std::nullopt;
}

}  // namespace magnetar::broker::admin::detail
