// router: picks the handler of an admin request by method and path pattern.
//
// Patterns are literal segments and {params}: "/admin/v2/tenants/{tenant}". A path's
// segments are split on '/' first and percent-decoded after, so a parameter never holds
// a '/'. Where several patterns match, the one with more literal segments wins
// ("/persistent/{t}/{ns}/partitioned" over "/persistent/{t}/{ns}/{topic}"). A path no
// pattern matches gets 404; a path matched under other methods only gets 405 with Allow.
//
// Every route says who may call it (access); with authorizationEnabled a guard checks
// that against the request's principal, once the path's params are known, before the
// handler runs.
//
// Routes are added before the server starts; dispatch() is then called concurrently
// from the server's sessions and only reads the table. Handlers must not throw.
#pragma once

#include "broker/admin/http_types.h"
#include "broker/admin/request_path.h"
#include "io/asio.h"

#include <functional>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace magnetar::broker::admin {

using handler = std::function<awaitable<http_response>(incoming_request)>;

// Who may call a route, as upstream's admin resources decide it.
enum class access {
  anyone,             // no check (/metrics)
  authenticated,      // any role (reading clusters)
  super_user,         // superUserRoles (clusters, tenants, brokers, bookies)
  tenant_admin,       // the {tenant}'s adminRoles (namespaces, policies, topic create/delete)
  namespace_listing,  // produce or consume granted on {tenant}/{namespace} (its topic lists)
  topic_lookup,       // produce or consume on the {topic} (stats, partitions, lookups)
  topic_consume,      // consume on the {topic}, for the {subscription} when named
};

// The check of a request against its route's access: the answer that refuses it
// (401/403), or nullopt to let it through.
using access_guard = std::function<awaitable<std::optional<http_response>>(const incoming_request&, access)>;

class router {
 public:
  void add(std::string method, std::string_view pattern, access who, handler fn);
  // Without a guard every route is open (authorizationEnabled=false).
  void set_guard(access_guard guard) { _guard = std::move(guard); }

  // Fills request.params and request.query and runs the route's handler, or answers
  // 404/405/400 (a malformed percent-escape) itself.
  awaitable<http_response> dispatch(incoming_request request) const;

 private:
  struct route {
    std::string method;
    path_pattern pattern;
    access who = access::anyone;
    handler fn;
  };
  const route* find(const std::vector<std::string>& path, const std::string& method, std::string* allow) const;

  std::vector<route> _routes;
  access_guard _guard;
};

}  // namespace magnetar::broker::admin
