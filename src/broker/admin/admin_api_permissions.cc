// admin_api: who may use a namespace's topics (Policies.auth_policies): grants to roles
// on the namespace (namespace_auth) or on one topic (destination_auth, keyed by the
// topic's full name), and the roles a subscription is limited to
// (subscription_auth_roles). Upstream's paths, bodies and answers.
#include "auth/authorization.h"
#include "broker/admin/admin_api.h"
#include "broker/admin/admin_errors.h"
#include "broker/admin/stats_json.h"
#include "broker/api/errc.h"

#include <fmt/format.h>

#include <variant>

namespace magnetar::broker::admin {

using nlohmann::json;

namespace {

// The auth_policies object inside a Policies document, made when missing.
json& auth_policies_in(json& policies, const char* part) {
  if (!policies.is_object()) policies = json::object();
  auto& auth = policies["auth_policies"];
  if (!auth.is_object()) auth = json::object();
  auto& inner = auth[part];
  if (!inner.is_object()) inner = json::object();
  return inner;
}

result<json> body_of(const incoming_request& request) { return parse_json(request.body); }

}  // namespace

awaitable<http_response> admin_api::update_auth_policies(const incoming_request& request,
                                                         std::function<result<void>(json&)> change) {
  if (auto bad = detail::invalid_names(request)) co_return *bad;
  auto done = co_await _resources.update_policies(detail::namespace_from(request), std::move(change));
  if (!done) co_return error_to_response(done.error());
  co_return no_content();
}

awaitable<std::variant<auth::auth_policies, http_response>> admin_api::read_auth_policies(
    const incoming_request& request) {
  if (auto bad = detail::invalid_names(request)) co_return *bad;
  auto policies = co_await _resources.get_policies(detail::namespace_from(request));
  if (!policies) co_return error_to_response(policies.error());
  auto auth = auth::auth_policies_from(policies.value());
  if (!auth) co_return error_response(500, auth.error().detail());
  co_return std::move(auth).value();
}

awaitable<http_response> admin_api::namespace_permissions(incoming_request request) {
  auto read = co_await read_auth_policies(request);
  if (auto* failed = std::get_if<http_response>(&read)) co_return std::move(*failed);
  const auto& auth = std::get<auth::auth_policies>(read);
  json out = json::object();
  for (const auto& [role, actions] : auth.namespace_auth) out[role] = auth::to_json(actions);
  co_return json_response(200, dump(out));
}

awaitable<http_response> admin_api::grant_namespace_permission(incoming_request request) {
  auto body = body_of(request);
  if (!body) co_return error_to_response(body.error());
  auto actions = auth::action_set_from(body.value());
  if (!actions) co_return error_response(400, actions.error().detail());
  const auto role = request.param("role");
  co_return co_await update_auth_policies(request, [&](json& policies) -> result<void> {
    auth_policies_in(policies, "namespace_auth")[role] = auth::to_json(actions.value());
    return success();
  });
}

awaitable<http_response> admin_api::revoke_namespace_permission(incoming_request request) {
  const auto role = request.param("role");
  co_return co_await update_auth_policies(request, [&](json& policies) -> result<void> {
    auth_policies_in(policies, "namespace_auth").erase(role);
    return success();
  });
}

awaitable<http_response> admin_api::subscription_permissions(incoming_request request) {
  auto read = co_await read_auth_policies(request);
  if (auto* failed = std::get_if<http_response>(&read)) co_return std::move(*failed);
  json out = json::object();
  for (const auto& [subscription, roles] : std::get<auth::auth_policies>(read).subscription_auth_roles) {
    out[subscription] = roles;
  }
  co_return json_response(200, dump(out));
}

awaitable<http_response> admin_api::grant_subscription_permission(incoming_request request) {
  auto body = body_of(request);
  if (!body) co_return error_to_response(body.error());
  const auto& roles = body.value();
  bool strings = roles.is_array();
  for (const auto& role : roles) strings = strings && role.is_string();
  if (!strings) co_return error_response(400, "Expected a list of roles, e.g. [\"app\"]");
  const auto subscription = request.param("subscription");
  co_return co_await update_auth_policies(request, [&](json& policies) -> result<void> {
    auth_policies_in(policies, "subscription_auth_roles")[subscription] = roles;
    return success();
  });
}

awaitable<http_response> admin_api::revoke_subscription_permission(incoming_request request) {
  const auto subscription = request.param("subscription");
  const auto role = request.param("role");
  co_return co_await update_auth_policies(request, [&](json& policies) -> result<void> {
    auto& subscriptions = auth_policies_in(policies, "subscription_auth_roles");
    auto it = subscriptions.find(subscription);
    if (it == subscriptions.end() || !it->is_array()) {
      return fail(errc::precondition_failed, fmt::format("Subscription '{}' has no permissions", subscription));
    }
    json kept = json::array();
    for (const auto& each : *it) {
      if (each != role) kept.push_back(each);
    }
    *it = std::move(kept);
    return success();
  });
}

awaitable<http_response> admin_api::topic_permissions(incoming_request request) {
  auto topic = detail::topic_from(request);
  if (!topic) co_return error_to_response(topic.error());
  auto read = co_await read_auth_policies(request);
  if (auto* failed = std::get_if<http_response>(&read)) co_return std::move(*failed);
  const auto& auth = std::get<auth::auth_policies>(read);
  // As upstream: what applies to the topic, the namespace's grants and its own together.
  std::map<std::string, auth::action_set> merged = auth.namespace_auth;
  if (auto it = auth.destination_auth.find(topic.value().full()); it != auth.destination_auth.end()) {
    for (const auto& [role, actions] : it->second) merged[role].insert(actions.begin(), actions.end());
  }
  json out = json::object();
  for (const auto& [role, actions] : merged) out[role] = auth::to_json(actions);
  co_return json_response(200, dump(out));
}

awaitable<http_response> admin_api::grant_topic_permission(incoming_request request) {
  auto topic = detail::topic_from(request);
  if (!topic) co_return error_to_response(topic.error());
  auto body = body_of(request);
  if (!body) co_return error_to_response(body.error());
  auto actions = auth::action_set_from(body.value());
  if (!actions) co_return error_response(400, actions.error().detail());
  const auto name = topic.value().full();
  const auto role = request.param("role");
  co_return co_await update_auth_policies(request, [&](json& policies) -> result<void> {
    auto& grants = auth_policies_in(policies, "destination_auth")[name];
    if (!grants.is_object()) grants = json::object();
    grants[role] = auth::to_json(actions.value());
    return success();
  });
}

awaitable<http_response> admin_api::revoke_topic_permission(incoming_request request) {
  auto topic = detail::topic_from(request);
  if (!topic) co_return error_to_response(topic.error());
  const auto name = topic.value().full();
  const auto role = request.param("role");
  co_return co_await update_auth_policies(request, [&](json& policies) -> result<void> {
    auto& topics = auth_policies_in(policies, "destination_auth");
    auto it = topics.find(name);
    if (it == topics.end() || !it->is_object() || !it->contains(role)) {
      return fail(errc::precondition_failed, "Permissions are not set at the topic level");
    }
    it->erase(role);
    if (it->empty()) topics.erase(it);
    return success();
  });
}

}  // namespace magnetar::broker::admin
