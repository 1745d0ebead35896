// admin_access: the admin API's authorization (authorizationEnabled): whether a
// request's principal may call its route, by the route's access (router.h), answered as
// upstream answers a refusal:
//   no principal                 403 "Need to authenticate to perform the request"
//   super_user                   401 "This operation requires super-user access"
//   tenant_admin                 401 "Don't have permission to administrate resources on this tenant"
//   namespace_listing            401 "Unauthorized to validateNamespaceOperation for operation [GET_TOPICS] ..."
//   topic_lookup, topic_consume  401 "Unauthorized to validateTopicOperation for operation [...] ..."
// A route's names are checked before the handler sees them, so a bad name gets the
// handler's own 412 (nothing is read for it here).
//
// Thread-safety: const; checks run concurrently from the server's sessions.
#pragma once

#include "broker/admin/http_types.h"
#include "broker/admin/router.h"
#include "broker/namespace/access_control.h"

#include <optional>

namespace magnetar::broker::admin {

class admin_access {
 public:
  // `rules` must outlive this.
  explicit admin_access(const access_control& rules) : _rules(rules) {}

  // The refusal, or nullopt when `request.principal` may call a route of `who`.
  awaitable<std::optional<http_response>> check(const incoming_request& request, access who) const;

 private:
  const access_control& _rules;
};

}  // namespace magnetar::broker::admin
