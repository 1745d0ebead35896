#include "perf/launcher/admin_requests.h"

#include "base/errc.h"
#include "http/client.h"

#include <fmt/format.h>

#include <chrono>

namespace magnetar::perf {

namespace {

struct topic_parts {
  std::string_view domain, tenant, ns, local;
};

result<topic_parts> split_topic(std::string_view topic) {
  const auto bad = [&] {
    return fail(base::errc::invalid_argument,
                fmt::format("topic '{}': expected persistent://<tenant>/<namespace>/<name>", topic));
  };
  const auto scheme_end = topic.find("://");
  if (scheme_end == std::string_view::npos) return bad();
  topic_parts parts;
  parts.domain = topic.substr(0, scheme_end);
  if (parts.domain != "persistent" && parts.domain != "non-persistent") return bad();
  std::string_view rest = topic.substr(scheme_end + 3);
  const auto first = rest.find('/');
  if (first == std::string_view::npos) return bad();
  const auto second = rest.find('/', first + 1);
  if (second == std::string_view::npos) return bad();
  parts.tenant = rest.substr(0, first);
  parts.ns = rest.substr(first + 1, second - first - 1);
  parts.local = rest.substr(second + 1);
  if (parts.tenant.empty() || parts.ns.empty() || parts.local.empty()) return bad();
  return parts;
}

}  // namespace

result<std::string> topic_stats_path(std::string_view topic) {
  MAGNETAR_TRY(parts, split_topic(topic));
  return fmt::format("/admin/v2/{}/{}/{}/{}/stats", parts.domain, parts.tenant, parts.ns,
                     http::encode_path_segment(parts.local));
}

result<topic_namespace> namespace_of(std::string_view topic) {
  MAGNETAR_TRY(parts, split_topic(topic));
  return topic_namespace{std::string(parts.tenant), std::string(parts.ns)};
}

result<bool> ensure_namespace(const http::url& admin, std::string_view topic) {
  MAGNETAR_TRY(ns, namespace_of(topic));
  const auto target = fmt::format("/admin/v2/namespaces/{}/{}", ns.tenant, ns.name);
  MAGNETAR_TRY(reply, http::call(admin, "PUT", target, {}, {.timeout = std::chrono::seconds(10)}));
  if (reply.status == 200 || reply.status == 204) return true;
  if (reply.status == 409) return false;
  return fail(base::errc::io_error,
              fmt::format("create namespace {}/{}: HTTP {}: {}", ns.tenant, ns.name, reply.status, reply.body));
}

}  // namespace magnetar::perf
