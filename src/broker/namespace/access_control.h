// access_control: the broker's authorization (authorizationEnabled): whether a role may
// produce to a topic, consume from it, look it up, list a namespace's topics, or
// administrate a tenant. auth::authorization decides; this reads what it decides over,
// the tenant's adminRoles and the namespace's auth_policies, from the configuration
// store through namespace_resources.
//
// One read per check, and callers check once per producer, consumer, lookup or admin
// request, never per message; a permission revoked later applies to the next ones
// (producers and consumers already attached keep theirs, as upstream's).
//
// A super user or an admin of the topic's tenant may do everything a role can be
// granted. A namespace that does not exist grants nothing. Errors are the store's
// (metadata_error) or bad stored policies; a denial is `false`, not an error.
//
// Thread-safety: const after construction; checks may run concurrently on any executor.
#pragma once

#include "auth/authorization.h"
#include "base/result.h"
#include "io/asio.h"
#include "wire/topic_name.h"

#include <optional>
#include <string>

namespace magnetar::broker {

class namespace_resources;

enum class topic_operation { lookup, produce, consume };

class access_control {
 public:
  access_control(auth::authorization_settings settings, namespace_resources& resources);

  bool is_super_user(const std::optional<std::string>& role) const { return _rules.is_super_user(role); }
  // A super user or one of the tenant's adminRoles (none when the tenant is missing).
  awaitable<result<bool>> is_tenant_admin(std::optional<std::string> role, std::string tenant) const;
  // `subscription` narrows consume (subscription_auth_roles); empty for none.
  awaitable<result<bool>> allows(std::optional<std::string> role, topic_operation operation, wire::topic_name topic,
                                 std::string subscription = {}) const;
  // Listing a namespace's topics: produce or consume granted on the namespace, or its
  // tenant's admin.
  awaitable<result<bool>> may_list_topics(std::optional<std::string> role, std::string namespace_name) const;

 private:
  awaitable<result<auth::auth_policies>> policies_of(std::string namespace_name) const;

  auth::authorization _rules;
  namespace_resources& _resources;
};

}  // namespace magnetar::broker
