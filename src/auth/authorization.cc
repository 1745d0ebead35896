#include "auth/authorization.h"

#include "auth/errc.h"

#include <fmt/format.h>

#include <algorithm>
#include <array>

namespace magnetar::auth {

using nlohmann::json;

namespace {

constexpr std::array<std::pair<auth_action, std::string_view>, 6> action_names{{
    {auth_action::produce, "produce"},
    {auth_action::consume, "consume"},
    {auth_action::functions, "functions"},
    {auth_action::sources, "sources"},
    {auth_action::sinks, "sinks"},
    {auth_action::packages, "packages"},
}};

// Stored policies may hold actions a newer broker wrote: skipped, not an error.
result<action_set> known_actions(const json& actions, std::string_view where) {
  if (!actions.is_array()) return fail(errc::bad_policies, fmt::format("{}: expected a list of actions", where));
  action_set out;
  for (const auto& name : actions) {
    if (!name.is_string()) return fail(errc::bad_policies, fmt::format("{}: actions are strings", where));
    if (auto action = auth_action_of(name.get<std::string>())) out.insert(*action);
  }
  return out;
}

result<std::map<std::string, action_set>> role_actions(const json& roles, std::string_view where) {
  std::map<std::string, action_set> out;
  if (roles.is_null()) return out;
  if (!roles.is_object()) return fail(errc::bad_policies, fmt::format("{}: expected an object of roles", where));
  for (const auto& [role, actions] : roles.items()) {
    MAGNETAR_TRY(set, known_actions(actions, where));
    out.emplace(role, std::move(set));
  }
  return out;
}

}  // namespace

std::string_view name_of(auth_action action) {
  for (const auto& [value, name] : action_names) {
    if (value == action) return name;
  }
  return "unknown";
}

std::optional<auth_action> auth_action_of(std::string_view name) {
  for (const auto& [value, known] : action_names) {
    if (known == name) return value;
  }
  return std::nullopt;
}

result<auth_policies> auth_policies_from(const json& policies) {
  auth_policies out;
  if (!policies.is_object() || !policies.contains("auth_policies")) return out;
  const auto& auth = policies["auth_policies"];
  if (auth.is_null()) return out;
  if (!auth.is_object()) return fail(errc::bad_policies, "auth_policies: expected an object");
  if (auth.contains("namespace_auth")) {
    MAGNETAR_TRY(roles, role_actions(auth["namespace_auth"], "namespace_auth"));
    out.namespace_auth = std::move(roles);
  }
  if (auth.contains("destination_auth") && !auth["destination_auth"].is_null()) {
    const auto& topics = auth["destination_auth"];
    if (!topics.is_object()) return fail(errc::bad_policies, "destination_auth: expected an object of topics");
    for (const auto& [topic, roles] : topics.items()) {
      MAGNETAR_TRY(parsed, role_actions(roles, "destination_auth"));
      out.destination_auth.emplace(topic, std::move(parsed));
    }
  }
  if (auth.contains("subscription_auth_roles") && !auth["subscription_auth_roles"].is_null()) {
    const auto& subscriptions = auth["subscription_auth_roles"];
    if (!subscriptions.is_object()) {
      return fail(errc::bad_policies, "subscription_auth_roles: expected an object of subscriptions");
    }
    for (const auto& [subscription, roles] : subscriptions.items()) {
      if (!roles.is_array()) return fail(errc::bad_policies, "subscription_auth_roles: expected lists of roles");
      std::set<std::string> names;
      for (const auto& role : roles) {
        if (!role.is_string()) return fail(errc::bad_policies, "subscription_auth_roles: roles are strings");
        names.insert(role.get<std::string>());
      }
      out.subscription_auth_roles.emplace(subscription, std::move(names));
    }
  }
  return out;
}

result<action_set> action_set_from(const json& actions) {
  if (!actions.is_array()) return fail(errc::bad_policies, "Expected a list of actions, e.g. [\"produce\"]");
  action_set out;
  for (const auto& name : actions) {
    if (!name.is_string()) return fail(errc::bad_policies, "Actions are strings");
    auto action = auth_action_of(name.get<std::string>());
    if (!action) {
      return fail(errc::bad_policies,
                  fmt::format("Unknown action '{}': produce, consume, functions, sources, sinks or packages",
                              name.get<std::string>()));
    }
    out.insert(*action);
  }
  return out;
}

json to_json(const action_set& actions) {
  json out = json::array();
  for (auto action : actions) out.push_back(name_of(action));
  return out;
}

bool authorization::is_super_user(const std::optional<std::string>& role) const {
  if (!role) return false;
  const auto& supers = _settings.super_user_roles;
  return std::find(supers.begin(), supers.end(), *role) != supers.end();
}

bool authorization::is_tenant_admin(const std::optional<std::string>& role,
                                    const std::vector<std::string>& admin_roles) const {
  if (is_super_user(role)) return true;
  return role && std::find(admin_roles.begin(), admin_roles.end(), *role) != admin_roles.end();
}

bool authorization::grants(const std::string& role, auth_action action,
                           const std::map<std::string, action_set>& roles) const {
  if (auto it = roles.find(role); it != roles.end() && it->second.contains(action)) return true;
  if (!_settings.allow_wildcards) return false;
  for (const auto& [granted, actions] : roles) {
    if (granted.empty() || !actions.contains(action)) continue;
    const std::string_view pattern = granted;
    if (pattern.back() == '*' && std::string_view(role).starts_with(pattern.substr(0, pattern.size() - 1))) {
      return true;
    }
    if (pattern.front() == '*' && std::string_view(role).ends_with(pattern.substr(1))) return true;
  }
  return false;
}

bool authorization::can(const std::optional<std::string>& role, auth_action action, std::string_view topic,
                        const auth_policies& policies) const {
  if (!role) return false;
  if (is_super_user(role)) return true;
  if (grants(*role, action, policies.namespace_auth)) return true;
  auto it = policies.destination_auth.find(std::string(topic));
  return it != policies.destination_auth.end() && grants(*role, action, it->second);
}

bool authorization::can_consume(const std::optional<std::string>& role, std::string_view topic,
                                std::string_view subscription, const auth_policies& policies) const {
  if (!role) return false;
  if (is_super_user(role)) return true;
  if (!subscription.empty()) {
    auto it = policies.subscription_auth_roles.find(std::string(subscription));
    if (it != policies.subscription_auth_roles.end() && !it->second.empty() && !it->second.contains(*role)) {
      return false;
    }
  }
  return can(role, auth_action::consume, topic, policies);
}

bool authorization::can_lookup(const std::optional<std::string>& role, std::string_view topic,
                               const auth_policies& policies) const {
  return can(role, auth_action::produce, topic, policies) || can(role, auth_action::consume, topic, policies);
}

bool authorization::has_namespace_action(const std::optional<std::string>& role, auth_action action,
                                         const auth_policies& policies) const {
  if (!role) return false;
  return is_super_user(role) || grants(*role, action, policies.namespace_auth);
}

}  // namespace magnetar::auth
