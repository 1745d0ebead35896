// authorization: what a role may do, as Pulsar's default authorization provider
// decides it, from superUserRoles, a tenant's adminRoles and a namespace's
// auth_policies. Pure decisions over values the caller read from the metadata store;
// no I/O, so the broker reads policies once per producer, consumer or admin call and
// never per message.
//
// The rules:
//  - a super user may do everything; a tenant's admin everything inside the tenant;
//  - produce/consume on a topic: the role holds the action on the namespace
//    (namespace_auth) or on the topic itself (destination_auth, keyed by the full name);
//  - consume on a subscription: also, when the subscription names roles
//    (subscription_auth_roles) and the list is not empty, the role must be among them;
//  - lookup: produce or consume;
//  - with wildcards allowed (authorizationAllowWildcardsMatching), a granted role
//    "pre*" matches roles starting with "pre" and "*suf" roles ending with "suf".
// An absent role (nobody authenticated) may do nothing.
//
// Thread-safety: plain values and const functions.
#pragma once

#include "base/result.h"

#include <nlohmann/json.hpp>

#include <map>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

namespace magnetar::auth {

// Pulsar's AuthAction.
enum class auth_action { produce, consume, functions, sources, sinks, packages };
std::string_view name_of(auth_action action);
std::optional<auth_action> auth_action_of(std::string_view name);

using action_set = std::set<auth_action>;

// A namespace's Policies.auth_policies.
struct auth_policies {
  std::map<std::string, action_set> namespace_auth;                           // role -> actions
  std::map<std::string, std::map<std::string, action_set>> destination_auth;  // topic -> role -> actions
  std::map<std::string, std::set<std::string>> subscription_auth_roles;       // subscription -> roles
};

// From the Policies JSON (the whole document, or null): absent parts are empty; an
// action this version doesn't know is skipped, as an unknown enum value would be
// unusable anyway. errc::bad_policies when the parts have the wrong shape.
result<auth_policies> auth_policies_from(const nlohmann::json& policies);
// A JSON array of action names, as the permissions REST call's body; errc::bad_policies
// naming the action that is not one.
result<action_set> action_set_from(const nlohmann::json& actions);
nlohmann::json to_json(const action_set& actions);

struct authorization_settings {
  std::vector<std::string> super_user_roles;  // superUserRoles
  bool allow_wildcards = false;               // authorizationAllowWildcardsMatching
};

class authorization {
 public:
  explicit authorization(authorization_settings settings) : _settings(std::move(settings)) {}

  bool is_super_user(const std::optional<std::string>& role) const;
  // A super user, or one of the tenant's adminRoles.
  bool is_tenant_admin(const std::optional<std::string>& role, const std::vector<std::string>& admin_roles) const;
  // `topic`: the full name ("persistent://t/ns/x"), destination_auth's key.
  bool can(const std::optional<std::string>& role, auth_action action, std::string_view topic,
           const auth_policies& policies) const;
  // Consume, narrowed by the subscription's roles when it has some (empty: no subscription).
  bool can_consume(const std::optional<std::string>& role, std::string_view topic, std::string_view subscription,
                   const auth_policies& policies) const;
  bool can_lookup(const std::optional<std::string>& role, std::string_view topic, const auth_policies& policies) const;
  // Holds `action` on the namespace itself (listing its topics needs produce or consume).
  bool has_namespace_action(const std::optional<std::string>& role, auth_action action,
                            const auth_policies& policies) const;

 private:
  bool grants(const std::string& role, auth_action action, const std::map<std::string, action_set>& roles) const;

  authorization_settings _settings;
};

}  // namespace magnetar::auth
