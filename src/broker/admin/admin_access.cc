#include "broker/admin/admin_access.h"

#include "base/log.h"
#include "wire/topic_name.h"

#include <fmt/format.h>

namespace magnetar::broker::admin {

namespace {

// The topic a route names: its {domain} (lookups), else the path's kind of topic.
std::optional<wire::topic_name> topic_of(const incoming_request& request) {
  std::string domain = "persistent";
  if (auto it = request.params.find("domain"); it != request.params.end()) {
    domain = it->second;
  } else if (request.target.starts_with("/admin/v2/non-persistent/")) {
    domain = "non-persistent";
  } else if (request.target.starts_with("/admin/v2/scalable/")) {
    domain = "topic";
  }
  auto name = wire::topic_name::parse(fmt::format("{}://{}/{}/{}", domain, request.param("tenant"),
                                                  request.param("namespace"), request.param("topic")));
  if (!name) return std::nullopt;
  return std::move(name).value();
}

bool has_names(const incoming_request& request, std::initializer_list<const char*> names) {
  for (const char* name : names) {
    auto it = request.params.find(name);
    if (it == request.params.end() || !wire::is_valid_name_part(it->second)) return false;
  }
  return true;
}

}  // namespace

awaitable<std::optional<http_response>> admin_access::check(const incoming_request& request, access who) const {
  if (who == access::anyone) co_return std::nullopt;
  const auto& role = request.principal;
  if (!role) co_return error_response(403, "Need to authenticate to perform the request");
  if (_rules.is_super_user(role)) co_return std::nullopt;
  result<bool> allowed = false;
  std::string refusal;
  switch (who) {
    case access::anyone:
    case access::authenticated: co_return std::nullopt;
    case access::super_user: refusal = "This operation requires super-user access"; break;
    case access::tenant_admin:
      if (!has_names(request, {"tenant"})) co_return std::nullopt;  // the handler's 412
      allowed = co_await _rules.is_tenant_admin(role, request.param("tenant"));
      refusal = "Don't have permission to administrate resources on this tenant";
      break;
    case access::namespace_listing: {
      if (!has_names(request, {"tenant", "namespace"})) co_return std::nullopt;
      const auto name = request.param("tenant") + "/" + request.param("namespace");
      allowed = co_await _rules.may_list_topics(role, name);
      refusal =
          fmt::format("Unauthorized to validateNamespaceOperation for operation [GET_TOPICS] on namespace [{}]", name);
      break;
    }
    case access::topic_lookup:
    case access::topic_consume: {
      auto topic = topic_of(request);
      if (!topic || !has_names(request, {"tenant", "namespace"})) co_return std::nullopt;
      const bool consume = who == access::topic_consume;
      // Plain locals: GCC 12 mishandles temporaries of a conditional inside co_await.
      const auto operation = consume ? topic_operation::consume : topic_operation::lookup;
      std::string subscription;
      if (consume) subscription = request.param("subscription");
      allowed = co_await _rules.allows(role, operation, *topic, std::move(subscription));
      refusal = fmt::format("Unauthorized to validateTopicOperation for operation [{}] on topic [{}]",
                            consume ? "CONSUME" : "LOOKUP", topic->full());
      break;
    }
  }
  if (!allowed) {
    co_return error_response(
        500, fmt::format("Failed to read permissions: {}",
                         allowed.error().detail().empty() ? allowed.error().message() : allowed.error().detail()));
  }
  if (allowed.value()) co_return std::nullopt;
  spdlog::info("admin: {} {}: role '{}' refused: {}", request.method, request.target, *role, refusal);
  co_return error_response(401, refusal);
}

}  // namespace magnetar::broker::admin
