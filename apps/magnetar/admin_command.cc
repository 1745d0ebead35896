#include "admin_command.h"

#include <fmt/format.h>

#include <cctype>
#include <charconv>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <limits>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "auth/client_credentials.h"
#include "base/errc.h"
#include "http/client.h"
#include "wire/topic_name.h"

namespace magnetar::app {

// The arguments of every verb. One verb runs per invocation, so they share one set.
struct admin_args {
  std::string target;  // the tenant, namespace or topic the verb acts on
  std::string subscription;
  std::string message_id;
  std::string time;
  int partitions = 0;
  std::int64_t count = 0;
  bool force = false;
  std::vector<std::string> admin_roles;
  std::vector<std::string> allowed_clusters;
  std::vector<std::uint64_t> segments;  // scalable-topics merge
  std::vector<std::string> clusters;    // namespaces set-clusters
  std::string service_url;              // clusters create / update: --url, --broker-url
  std::string broker_service_url;
  std::string service_url_tls;  // --url-secure, --broker-url-secure
  std::string broker_service_url_tls;
  std::string bundle;                // namespaces unload / split-bundle: "0x..._0x..."
  bool unload = false;               // namespaces split-bundle
  std::string role;                  // grant-permission / revoke-permission
  std::vector<std::string> actions;  // grant-permission: produce, consume, ...
  std::vector<std::string> roles;    // grant-subscription-permission
};

struct admin_command::state {
  std::string url = "http://localhost:8080";
  std::string auth_plugin;
  std::string auth_params;
  tls::client_settings tls;  // for an https:// admin URL
  admin_args args;
  // Set by the chosen verb's parse callback; run() calls it.
  std::function<int(const http::url&, const admin_args&)> action;
};

namespace {

using nlohmann::json;
using action_fn = std::function<int(const http::url&, const admin_args&)>;

// What every call sends with: the Authorization header ("Bearer <token>", from
// --auth-params) and the TLS settings of an https:// URL. Set by run() before the one
// verb of the invocation runs (main() is single-threaded).
http::call_options& call_defaults() {
  static http::call_options defaults{.server_name = "the admin API", .max_redirects = 5};
  return defaults;
}

int fail_with(std::string_view message) {
  fmt::print(stderr, "magnetar admin: {}\n", message);
  return EXIT_FAILURE;
}

enum class output { none, json, list };

// pulsar-admin's output: lists one item per line, objects as indented JSON.
void print_body(const std::string& body, output kind) {
  if (kind == output::none || body.empty()) return;
  const json parsed = json::parse(body, nullptr, /*allow_exceptions=*/false);
  if (parsed.is_discarded()) {
    fmt::print("{}\n", body);
  } else if (kind == output::list && parsed.is_array()) {
    for (const auto& item : parsed) fmt::print("{}\n", item.is_string() ? item.get<std::string>() : item.dump());
  } else {
    fmt::print("{}\n", parsed.dump(2));
  }
}

// The server's explanation: the `reason` of Pulsar's {"reason": ...} error body.
std::string reason_of(const http::reply& reply) {
  const json parsed = json::parse(reply.body, nullptr, false);
  if (parsed.is_object() && parsed.contains("reason") && parsed["reason"].is_string()) {
    return parsed["reason"].get<std::string>();
  }
  if (!reply.body.empty() && reply.body.size() < 500) return reply.body;
  return reply.reason;
}

// A failure names the server as the user knows it: "cannot connect to the admin API at ...".
result<http::reply> admin_call(const http::url& url, std::string_view method, const std::string& path,
                               std::string_view body = {}) {
  return http::call(url, method, path, body, call_defaults());
}

int request(const http::url& url, std::string_view method, const std::string& path, output kind,
            std::string_view body = {}) {
  auto reply = admin_call(url, method, path, body);
  if (!reply) return fail_with(reply.error().detail());
  if (reply.value().status < 200 || reply.value().status >= 300) {
    return fail_with(fmt::format("{} (HTTP {})", reason_of(reply.value()), reply.value().status));
  }
  print_body(reply.value().body, kind);
  return EXIT_SUCCESS;
}

std::string force_query(bool force) { return force ? "?force=true" : ""; }

result<std::string> tenant_name(std::string_view tenant) {
  if (!wire::is_valid_name_part(tenant)) {
    return fail(base::errc::invalid_argument, fmt::format("invalid tenant name '{}'", tenant));
  }
  return std::string(tenant);
}

// "tenant/namespace" -> "tenant/namespace", checked.
result<std::string> namespace_name(std::string_view text) {
  const auto slash = text.find('/');
  if (slash == std::string_view::npos || text.find('/', slash + 1) != std::string_view::npos ||
      !wire::is_valid_name_part(text.substr(0, slash)) || !wire::is_valid_name_part(text.substr(slash + 1))) {
    return fail(base::errc::invalid_argument, fmt::format("invalid namespace '{}': expected tenant/namespace", text));
  }
  return std::string(text);
}

// Any form Pulsar accepts (my-topic, tenant/ns/t, persistent://tenant/ns/t).
result<std::string> topic_path(std::string_view text) {
  MAGNETAR_TRY(topic, wire::topic_name::parse(text));
  return fmt::format("/admin/v2/{}/{}/{}/{}", topic.domain(), topic.tenant(), topic.namespace_part(),
                     http::encode_path_segment(topic.local_name()));
}

// topic://t/n/x, t/n/x or x: /admin/v2/scalable/t/n/x.
result<std::string> scalable_path(std::string_view text) {
  MAGNETAR_TRY(topic, wire::topic_name::parse(text));
  if (!topic.is_scalable() && text.find("://") != std::string_view::npos) {
    return fail(base::errc::invalid_argument,
                fmt::format("'{}' is not a scalable topic: give topic://tenant/namespace/name", text));
  }
  return fmt::format("/admin/v2/scalable/{}/{}/{}", topic.tenant(), topic.namespace_part(),
                     http::encode_path_segment(topic.local_name()));
}

result<std::int64_t> parse_int(std::string_view text) {
  std::int64_t value = 0;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (ec != std::errc() || end != text.data() + text.size() || text.empty()) {
    return fail(base::errc::invalid_argument, fmt::format("'{}' is not a whole number", text));
  }
  return value;
}

// earliest | latest | ledgerId:entryId, as the JSON body of a MessageId (upstream's form,
// which pulsar-admin sends too: latest is Long.MAX_VALUE twice, earliest -1 twice).
result<std::string> message_id_body(std::string_view text) {
  constexpr auto max = std::numeric_limits<std::int64_t>::max();
  std::int64_t ledger = 0, entry = 0;
  if (text == "latest") {
    ledger = entry = max;
  } else if (text == "earliest") {
    ledger = entry = -1;
  } else {
    const auto colon = text.find(':');
    auto l = parse_int(text.substr(0, colon));
    auto e = colon == std::string_view::npos ? l : parse_int(text.substr(colon + 1));
    if (colon == std::string_view::npos || !l || !e) {
      return fail(base::errc::invalid_argument,
                  fmt::format("invalid message id '{}': expected earliest, latest or ledgerId:entryId", text));
    }
    ledger = l.value();
    entry = e.value();
  }
  return json{{"ledgerId", ledger}, {"entryId", entry}, {"partitionIndex", -1}}.dump();
}

// --time: a duration back from now with a unit (30s, 10m, 2h, 1d, 1w, 1y), like
// pulsar-admin's, or an absolute timestamp in milliseconds since the epoch. pulsar-admin
// reads a bare number as seconds back; a bare number before 2000 is therefore refused
// rather than taken as a 1970 timestamp that would rewind the whole topic.
result<std::int64_t> reset_timestamp(std::string_view text) {
  using namespace std::chrono;
  const auto now = duration_cast<milliseconds>(system_clock::now().time_since_epoch()).count();
  if (!text.empty() && std::isdigit(static_cast<unsigned char>(text.back()))) {
    MAGNETAR_TRY(stamp, parse_int(text));
    constexpr std::int64_t year_2000_ms = 946'684'800'000;
    if (stamp < year_2000_ms) {
      return fail(base::errc::invalid_argument,
                  fmt::format("--time {} is a timestamp before 2000; for a time back from now give a unit, "
                              "e.g. {}s or {}m",
                              text, text, text));
    }
    return stamp;
  }
  const std::string_view number = text.empty() ? text : text.substr(0, text.size() - 1);
  std::int64_t unit_ms = 0;
  switch (text.empty() ? '\0' : text.back()) {
    case 's': unit_ms = 1000; break;
    case 'm': unit_ms = 60'000; break;
    case 'h': unit_ms = 3'600'000; break;
    case 'd': unit_ms = 86'400'000; break;
    case 'w': unit_ms = 7 * 86'400'000LL; break;
    case 'y': unit_ms = 365 * 86'400'000LL; break;
  }
  auto amount = parse_int(number);
  if (unit_ms == 0 || !amount || amount.value() < 0 || amount.value() > now / unit_ms) {
    return fail(base::errc::invalid_argument,
                fmt::format("invalid --time '{}': expected a duration such as 10m, 2h, 1d (s, m, h, d, w, y) "
                            "or a timestamp in milliseconds",
                            text));
  }
  return now - amount.value() * unit_ms;
}

// Wraps an action whose path (or body) comes from checked arguments: a bad argument is
// reported before anything is sent.
template <class F>
action_fn checked(F f) {
  return [f](const http::url& url, const admin_args& args) -> int {
    result<int> code = f(url, args);
    return code ? code.value() : fail_with(code.error().detail());
  };
}

int create_tenant(const http::url& url, const admin_args& args, const std::string& path) {
  std::vector<std::string> clusters = args.allowed_clusters;
  if (clusters.empty()) {  // pulsar-admin's default: every cluster
    auto reply = admin_call(url, "GET", "/admin/v2/clusters");
    if (!reply) return fail_with(reply.error().detail());
    const json listed = json::parse(reply.value().body, nullptr, false);
    if (reply.value().status == 200 && listed.is_array()) {
      for (const auto& c : listed) {
        if (c.is_string()) clusters.push_back(c.get<std::string>());
      }
    }
  }
  const json body{{"adminRoles", args.admin_roles}, {"allowedClusters", clusters}};
  return request(url, "PUT", path, output::none, body.dump());
}

CLI::App* verb(admin_command::state& state, CLI::App& group, std::string name, std::string description,
               action_fn action) {
  auto* sub = group.add_subcommand(std::move(name), std::move(description));
  sub->fallthrough();
  sub->callback([&state, action = std::move(action)] { state.action = action; });
  return sub;
}

void add_target(CLI::App* sub, admin_args& args, std::string name, std::string description) {
  sub->add_option(std::move(name), args.target, std::move(description))->required();
}

void add_subscription(CLI::App* sub, admin_args& args) {
  sub->add_option("-s,--subscription", args.subscription, "Subscription name")->required();
}

constexpr const char* topic_help = "Topic: my-topic, tenant/namespace/topic or persistent://tenant/namespace/topic";

void add_clusters(admin_command::state& s, CLI::App& admin) {
  auto& a = s.args;
  auto* group = admin.add_subcommand("clusters", "List, create, update and delete clusters (geo-replication's peers)");
  group->fallthrough();
  verb(s, *group, "list", "List the clusters",
       [](const http::url& url, const admin_args&) { return request(url, "GET", "/admin/v2/clusters", output::list); });
  auto cluster_verb = [&](std::string name, std::string description, std::string method, output kind, bool urls) {
    auto* sub = verb(s, *group, std::move(name), std::move(description),
                     checked([method, kind, urls](const http::url& url, const admin_args& args) -> result<int> {
                       MAGNETAR_TRY(cluster, tenant_name(args.target));
                       std::string body;
                       if (urls) {
                         json data = json::object();
                         if (!args.service_url.empty()) data["serviceUrl"] = args.service_url;
                         if (!args.broker_service_url.empty()) data["brokerServiceUrl"] = args.broker_service_url;
                         if (!args.service_url_tls.empty()) data["serviceUrlTls"] = args.service_url_tls;
                         if (!args.broker_service_url_tls.empty()) {
                           data["brokerServiceUrlTls"] = args.broker_service_url_tls;
                         }
                         if (!data.contains("brokerServiceUrl") && !data.contains("brokerServiceUrlTls")) {
                           return fail(base::errc::invalid_argument, "--broker-url or --broker-url-secure is required");
                         }
                         body = data.dump();
                       }
                       return request(url, method, "/admin/v2/clusters/" + cluster, kind, body);
                     }));
    add_target(sub, a, "cluster", "Cluster name");
    if (urls) {
      sub->add_option("--url", a.service_url, "The cluster's web service URL: http://host:port");
      sub->add_option("--broker-url", a.broker_service_url, "The cluster's broker service URL: pulsar://host:port");
      sub->add_option("--url-secure", a.service_url_tls, "The cluster's web service URL over TLS: https://host:port");
      sub->add_option("--broker-url-secure", a.broker_service_url_tls,
                      "The cluster's broker service URL over TLS: pulsar+ssl://host:port (replication with "
                      "brokerClientTlsEnabled dials it)");
    }
  };
  cluster_verb("get", "Show a cluster's URLs", "GET", output::json, false);
  cluster_verb("create", "Add a cluster (a remote one, to replicate to)", "PUT", output::none, true);
  cluster_verb("update", "Change a cluster's URLs", "POST", output::none, true);
  cluster_verb("delete", "Remove a cluster no tenant allows", "DELETE", output::none, false);
}

void add_brokers(admin_command::state& s, CLI::App& admin) {
  auto& a = s.args;
  auto* group = admin.add_subcommand("brokers", "A cluster's brokers: list them, its leader, a health check");
  group->fallthrough();
  auto* list = verb(s, *group, "list", "List the active brokers of a cluster",
                    checked([](const http::url& url, const admin_args& args) -> result<int> {
                      MAGNETAR_TRY(cluster, tenant_name(args.target));
                      return request(url, "GET", "/admin/v2/brokers/" + cluster, output::list);
                    }));
  add_target(list, a, "cluster", "Cluster name");
  verb(s, *group, "leader-broker", "Show the broker that leads the cluster (runs its load shedding)",
       [](const http::url& url, const admin_args&) {
         return request(url, "GET", "/admin/v2/brokers/leaderBroker", output::json);
       })
      ->alias("leader");
  verb(s, *group, "healthcheck", "Check that the broker serves topics and holds its metadata session",
       [](const http::url& url, const admin_args&) {
         return request(url, "GET", "/admin/v2/brokers/health", output::json);
       });
}

void add_bookies(admin_command::state& s, CLI::App& admin) {
  auto* group = admin.add_subcommand("bookies", "List bookies and the ledgers auto-recovery is copying");
  group->fallthrough();
  verb(s, *group, "list-bookies", "List the registered bookies (writable and read-only)",
       [](const http::url& url, const admin_args&) {
         return request(url, "GET", "/admin/v2/bookies/all", output::json);
       })
      ->alias("list");
  verb(s, *group, "list-underreplicated", "List the ledgers that lack replicas, with the bookies they lost",
       [](const http::url& url, const admin_args&) {
         return request(url, "GET", "/admin/v2/bookies/underreplicated", output::json);
       });
}

void add_tenants(admin_command::state& s, CLI::App& admin) {
  auto& a = s.args;
  auto* group = admin.add_subcommand("tenants", "List, create and delete tenants");
  group->fallthrough();
  verb(s, *group, "list", "List the tenants",
       [](const http::url& url, const admin_args&) { return request(url, "GET", "/admin/v2/tenants", output::list); });
  auto* create = verb(s, *group, "create", "Create a tenant",
                      checked([](const http::url& url, const admin_args& args) -> result<int> {
                        MAGNETAR_TRY(tenant, tenant_name(args.target));
                        return create_tenant(url, args, "/admin/v2/tenants/" + tenant);
                      }));
  add_target(create, a, "tenant", "Tenant name");
  create->add_option("-r,--admin-roles", a.admin_roles, "Admin roles, comma-separated")->delimiter(',');
  create->add_option("-c,--allowed-clusters", a.allowed_clusters, "Allowed clusters, comma-separated (default: all)")
      ->delimiter(',');
  auto* update = verb(s, *group, "update", "Change a tenant's admin roles and allowed clusters",
                      checked([](const http::url& url, const admin_args& args) -> result<int> {
                        MAGNETAR_TRY(tenant, tenant_name(args.target));
                        const json body{{"adminRoles", args.admin_roles}, {"allowedClusters", args.allowed_clusters}};
                        return request(url, "POST", "/admin/v2/tenants/" + tenant, output::none, body.dump());
                      }));
  add_target(update, a, "tenant", "Tenant name");
  update->add_option("-r,--admin-roles", a.admin_roles, "Admin roles, comma-separated")->delimiter(',');
  update->add_option("-c,--allowed-clusters", a.allowed_clusters, "Allowed clusters, comma-separated")
      ->delimiter(',')
      ->required();
  auto* remove = verb(
      s, *group, "delete", "Delete a tenant", checked([](const http::url& url, const admin_args& args) -> result<int> {
        MAGNETAR_TRY(tenant, tenant_name(args.target));
        return request(url, "DELETE", "/admin/v2/tenants/" + tenant + force_query(args.force), output::none);
      }));
  add_target(remove, a, "tenant", "Tenant name");
  remove->add_flag("-f,--force", a.force, "Delete the tenant's namespaces and topics too");
}

void add_role(CLI::App* sub, admin_args& args) {
  sub->add_option("--role", args.role, "The client role (a token's subject)")->required();
}

void add_actions(CLI::App* sub, admin_args& args) {
  sub->add_option("--actions", args.actions, "Actions, comma-separated: produce, consume, functions, ...")
      ->delimiter(',')
      ->required();
}

// Who may use a namespace's topics: grants to roles, and the roles a subscription is
// limited to.
void add_namespace_permissions(admin_command::state& s, CLI::App& group) {
  auto& a = s.args;
  // A permissions call on the namespace: `make` gives the path's suffix, method, body, output.
  auto on_namespace =
      [&](std::string name, std::string description,
          std::function<std::tuple<std::string, std::string, std::string, output>(const admin_args&)> make) {
        auto* sub =
            verb(s, group, std::move(name), std::move(description),
                 checked([make](const http::url& url, const admin_args& args) -> result<int> {
                   MAGNETAR_TRY(ns, namespace_name(args.target));
                   auto [method, suffix, body, kind] = make(args);
                   return request(url, method, "/admin/v2/namespaces/" + ns + "/permissions" + suffix, kind, body);
                 }));
        add_target(sub, a, "namespace", "Namespace: tenant/namespace");
        return sub;
      };
  auto segment = [](const std::string& text) { return "/" + http::encode_path_segment(text); };
  on_namespace("permissions", "Show the roles granted actions on a namespace", [](const admin_args&) {
    return std::tuple{std::string("GET"), std::string(), std::string(), output::json};
  });
  auto* grant = on_namespace(
      "grant-permission", "Let a role produce, consume, ... on a namespace's topics",
      [segment](const admin_args& args) {
        return std::tuple{std::string("POST"), segment(args.role), json(args.actions).dump(), output::none};
      });
  add_role(grant, a);
  add_actions(grant, a);
  auto* revoke =
      on_namespace("revoke-permission", "Take a role's grants on a namespace away", [segment](const admin_args& args) {
        return std::tuple{std::string("DELETE"), segment(args.role), std::string(), output::none};
      });
  add_role(revoke, a);
  auto* grant_sub = on_namespace("grant-subscription-permission", "Limit a subscription to these roles",
                                 [segment](const admin_args& args) {
                                   return std::tuple{std::string("POST"), "/subscription" + segment(args.subscription),
                                                     json(args.roles).dump(), output::none};
                                 });
  add_subscription(grant_sub, a);
  grant_sub->add_option("--roles", a.roles, "Roles, comma-separated")->delimiter(',')->required();
  auto* revoke_sub = on_namespace(
      "revoke-subscription-permission", "Take a role off a subscription's roles", [segment](const admin_args& args) {
        return std::tuple{std::string("DELETE"), segment(args.subscription) + segment(args.role), std::string(),
                          output::none};
      });
  add_subscription(revoke_sub, a);
  add_role(revoke_sub, a);
}

void add_namespaces(admin_command::state& s, CLI::App& admin) {
  auto& a = s.args;
  auto* group = admin.add_subcommand("namespaces", "List, create and delete namespaces; show their policies");
  group->fallthrough();
  auto* list = verb(s, *group, "list", "List a tenant's namespaces",
                    checked([](const http::url& url, const admin_args& args) -> result<int> {
                      MAGNETAR_TRY(tenant, tenant_name(args.target));
                      return request(url, "GET", "/admin/v2/namespaces/" + tenant, output::list);
                    }));
  add_target(list, a, "tenant", "Tenant name");
  auto namespace_verb = [&](std::string name, std::string description, std::string method, output kind, bool force) {
    auto* sub = verb(s, *group, std::move(name), std::move(description),
                     checked([method, kind](const http::url& url, const admin_args& args) -> result<int> {
                       MAGNETAR_TRY(ns, namespace_name(args.target));
                       return request(url, method, "/admin/v2/namespaces/" + ns + force_query(args.force), kind);
                     }));
    add_target(sub, a, "namespace", "Namespace: tenant/namespace");
    if (force) sub->add_flag("-f,--force", a.force, "Delete the namespace's topics too");
  };
  namespace_verb("create", "Create a namespace", "PUT", output::none, false);
  namespace_verb("delete", "Delete a namespace", "DELETE", output::none, true);
  namespace_verb("policies", "Show a namespace's policies", "GET", output::json, false);
  namespace_verb("bundles", "Show a namespace's bundles (their boundaries)", "GET", output::json, false);

  auto* set_clusters = verb(s, *group, "set-clusters", "Replicate a namespace's topics to these clusters",
                            checked([](const http::url& url, const admin_args& args) -> result<int> {
                              MAGNETAR_TRY(ns, namespace_name(args.target));
                              return request(url, "POST", "/admin/v2/namespaces/" + ns + "/replication", output::none,
                                             json(args.clusters).dump());
                            }));
  add_target(set_clusters, a, "namespace", "Namespace: tenant/namespace");
  set_clusters->add_option("-c,--clusters", a.clusters, "The clusters, comma-separated (this one among them)")
      ->delimiter(',')
      ->required();
  auto* get_clusters = verb(s, *group, "get-clusters", "Show the clusters a namespace's topics are replicated to",
                            checked([](const http::url& url, const admin_args& args) -> result<int> {
                              MAGNETAR_TRY(ns, namespace_name(args.target));
                              return request(url, "GET", "/admin/v2/namespaces/" + ns + "/replication", output::list);
                            }));
  add_target(get_clusters, a, "namespace", "Namespace: tenant/namespace");

  auto* unload = verb(s, *group, "unload",
                      "Unload a namespace's bundles (or one): their topics move to the "
                      "broker the next lookup picks",
                      checked([](const http::url& url, const admin_args& args) -> result<int> {
                        MAGNETAR_TRY(ns, namespace_name(args.target));
                        const auto bundle = args.bundle.empty() ? std::string() : "/" + args.bundle;
                        return request(url, "PUT", "/admin/v2/namespaces/" + ns + bundle + "/unload", output::none);
                      }));
  add_target(unload, a, "namespace", "Namespace: tenant/namespace");
  unload->add_option("-b,--bundle", a.bundle, "One bundle: {start}_{end}, as `namespaces bundles` lists them");

  auto* split = verb(s, *group, "split-bundle", "Split a bundle into its two halves",
                     checked([](const http::url& url, const admin_args& args) -> result<int> {
                       MAGNETAR_TRY(ns, namespace_name(args.target));
                       return request(url, "PUT",
                                      fmt::format("/admin/v2/namespaces/{}/{}/split?unload={}", ns,
                                                  http::encode_path_segment(args.bundle), args.unload),
                                      output::none);
                     }));
  add_target(split, a, "namespace", "Namespace: tenant/namespace");
  split->add_option("-b,--bundle", a.bundle, "The bundle: {start}_{end}")->required();
  split->add_flag("-u,--unload", a.unload, "Unload the two halves once split");
  add_namespace_permissions(s, *group);
}

// A topics verb: `make` builds the method, path suffix, body and output from the
// arguments once the topic's path is known.
struct topic_request {
  std::string method;
  std::string suffix;
  output kind = output::none;
  std::string body;
};

CLI::App* topic_verb(admin_command::state& s, CLI::App& group, std::string name, std::string description,
                     std::function<result<topic_request>(const admin_args&)> make) {
  auto* sub = verb(s, group, std::move(name), std::move(description),
                   checked([make](const http::url& url, const admin_args& args) -> result<int> {
                     MAGNETAR_TRY(path, topic_path(args.target));
                     MAGNETAR_TRY(r, make(args));
                     return request(url, r.method, path + r.suffix, r.kind, r.body);
                   }));
  add_target(sub, s.args, "topic", topic_help);
  return sub;
}

std::string subscription_suffix(const admin_args& args) {
  return "/subscription/" + http::encode_path_segment(args.subscription);
}

void add_topics(admin_command::state& s, CLI::App& admin) {
  auto& a = s.args;
  auto* group = admin.add_subcommand("topics", "Topics, partitioned topics, stats and subscriptions");
  group->fallthrough();
  auto namespace_list = [&](std::string name, std::string description, std::string suffix) {
    auto* sub = verb(s, *group, std::move(name), std::move(description),
                     checked([suffix](const http::url& url, const admin_args& args) -> result<int> {
                       MAGNETAR_TRY(ns, namespace_name(args.target));
                       return request(url, "GET", "/admin/v2/persistent/" + ns + suffix, output::list);
                     }));
    add_target(sub, a, "namespace", "Namespace: tenant/namespace");
  };
  namespace_list("list", "List a namespace's topics (partitions of partitioned topics included)", "");
  namespace_list("list-partitioned-topics", "List a namespace's partitioned topics", "/partitioned");

  using r = topic_request;
  auto fixed = [](r request) { return [request](const admin_args&) -> result<r> { return request; }; };
  topic_verb(s, *group, "create", "Create a non-partitioned topic", fixed(r{"PUT", "", output::none, ""}));
  topic_verb(s, *group, "delete", "Delete a topic", [](const admin_args& args) -> result<r> {
    return r{"DELETE", force_query(args.force), output::none, ""};
  })->add_flag("-f,--force", a.force, "Delete even with producers or consumers connected");
  topic_verb(s, *group, "create-partitioned-topic", "Create a partitioned topic",
             [](const admin_args& args) -> result<r> {
               return r{"PUT", "/partitions", output::none, std::to_string(args.partitions)};
             })
      ->add_option("-p,--partitions", a.partitions, "Number of partitions")
      ->required()
      ->check(CLI::Range(1, std::numeric_limits<int>::max()));
  topic_verb(s, *group, "get-partitioned-topic-metadata", "Show a partitioned topic's partition count",
             fixed(r{"GET", "/partitions", output::json, ""}));
  topic_verb(s, *group, "delete-partitioned-topic", "Delete a partitioned topic and its partitions",
             [](const admin_args& args) -> result<r> {
               return r{"DELETE", "/partitions" + force_query(args.force), output::none, ""};
             })
      ->add_flag("-f,--force", a.force, "Delete even with producers or consumers connected");
  topic_verb(s, *group, "stats", "Show a topic's stats", fixed(r{"GET", "/stats", output::json, ""}));
  topic_verb(s, *group, "unload", "Unload a topic: it moves to the broker the next lookup picks",
             fixed(r{"PUT", "/unload", output::none, ""}));
  auto* lookup = verb(s, *group, "lookup", "Show the broker that serves a topic",
                      checked([](const http::url& url, const admin_args& args) -> result<int> {
                        MAGNETAR_TRY(topic, wire::topic_name::parse(args.target));
                        auto reply = admin_call(
                            url, "GET",
                            fmt::format("/lookup/v2/topic/{}/{}/{}/{}", topic.domain(), topic.tenant(),
                                        topic.namespace_part(), http::encode_path_segment(topic.local_name())));
                        if (!reply) return fail_with(reply.error().detail());
                        if (reply.value().status != 200) {
                          return fail_with(fmt::format("{} (HTTP {})", reason_of(reply.value()), reply.value().status));
                        }
                        const json answer = json::parse(reply.value().body, nullptr, false);
                        if (!answer.is_object() || !answer.contains("brokerUrl")) {
                          return fail_with("the lookup's answer has no brokerUrl: " + reply.value().body);
                        }
                        fmt::print("{}\n", answer["brokerUrl"].get<std::string>());
                        return EXIT_SUCCESS;
                      }));
  add_target(lookup, a, "topic", topic_help);
  topic_verb(s, *group, "partitioned-stats", "Show a partitioned topic's stats",
             fixed(r{"GET", "/partitioned-stats", output::json, ""}));
  topic_verb(s, *group, "stats-internal", "Show a topic's internal (managed ledger) stats",
             fixed(r{"GET", "/internalStats", output::json, ""}));
  topic_verb(s, *group, "subscriptions", "List a topic's subscriptions",
             fixed(r{"GET", "/subscriptions", output::list, ""}));

  auto* create_sub =
      topic_verb(s, *group, "create-subscription", "Create a subscription", [](const admin_args& args) -> result<r> {
        MAGNETAR_TRY(body, message_id_body(args.message_id.empty() ? "latest" : args.message_id));
        return r{"PUT", subscription_suffix(args), output::none, body};
      });
  add_subscription(create_sub, a);
  // No default_val(): CLI11 would write it into the shared arguments at once.
  create_sub->add_option("-m,--messageId", a.message_id,
                         "Where it starts: earliest, latest (the default) or ledgerId:entryId");

  auto* unsubscribe =
      topic_verb(s, *group, "unsubscribe", "Delete a subscription", [](const admin_args& args) -> result<r> {
        return r{"DELETE", subscription_suffix(args) + force_query(args.force), output::none, ""};
      });
  add_subscription(unsubscribe, a);
  unsubscribe->add_flag("-f,--force", a.force, "Disconnect its consumers first");

  auto* reset = topic_verb(
      s, *group, "reset-cursor", "Move a subscription to a time or message id",
      [](const admin_args& args) -> result<r> {
        if (args.time.empty() == args.message_id.empty()) {
          return fail(base::errc::invalid_argument, "reset-cursor needs either --time or --messageId");
        }
        if (!args.time.empty()) {
          MAGNETAR_TRY(stamp, reset_timestamp(args.time));
          return r{"POST", fmt::format("{}/resetcursor/{}", subscription_suffix(args), stamp), output::none, ""};
        }
        MAGNETAR_TRY(body, message_id_body(args.message_id));
        return r{"POST", subscription_suffix(args) + "/resetcursor", output::none, body};
      });
  add_subscription(reset, a);
  auto* time = reset->add_option("-t,--time", a.time,
                                 "Time back from now (10m, 2h, 1d; s m h d w y) or a timestamp in ms since the epoch");
  reset->add_option("-m,--messageId", a.message_id, "Message id: earliest, latest or ledgerId:entryId")->excludes(time);

  auto* skip =
      topic_verb(s, *group, "skip", "Skip messages of a subscription", [](const admin_args& args) -> result<r> {
        return r{"POST", fmt::format("{}/skip/{}", subscription_suffix(args), args.count), output::none, ""};
      });
  add_subscription(skip, a);
  skip->add_option("-n,--count", a.count, "Number of messages to skip")
      ->required()
      ->check(CLI::Range(std::int64_t{1}, std::numeric_limits<std::int64_t>::max()));

  auto* clear = topic_verb(s, *group, "clear-backlog", "Skip every message of a subscription",
                           [](const admin_args& args) -> result<r> {
                             return r{"POST", subscription_suffix(args) + "/skip_all", output::none, ""};
                           });
  add_subscription(clear, a);

  topic_verb(s, *group, "permissions", "Show the roles granted actions on a topic (its namespace's too)",
             fixed(r{"GET", "/permissions", output::json, ""}));
  auto* grant = topic_verb(s, *group, "grant-permission", "Let a role produce, consume, ... on one topic",
                           [](const admin_args& args) -> result<r> {
                             return r{"POST", "/permissions/" + http::encode_path_segment(args.role), output::none,
                                      json(args.actions).dump()};
                           });
  add_role(grant, a);
  add_actions(grant, a);
  auto* revoke = topic_verb(
      s, *group, "revoke-permission", "Take a role's grant on one topic away", [](const admin_args& args) -> result<r> {
        return r{"DELETE", "/permissions/" + http::encode_path_segment(args.role), output::none, ""};
      });
  add_role(revoke, a);
}

void add_scalable_topics(admin_command::state& s, CLI::App& admin) {
  auto& a = s.args;
  auto* group = admin.add_subcommand("scalable-topics", "Scalable topics (topic://): create, layout, split, merge");
  group->fallthrough();
  constexpr const char* help = "Scalable topic: name, tenant/namespace/name or topic://tenant/namespace/name";
  auto* list = verb(s, *group, "list", "List a namespace's scalable topics",
                    checked([](const http::url& url, const admin_args& args) -> result<int> {
                      MAGNETAR_TRY(ns, namespace_name(args.target));
                      return request(url, "GET", "/admin/v2/scalable/" + ns, output::list);
                    }));
  add_target(list, a, "namespace", "Namespace: tenant/namespace");
  // A verb on one scalable topic: `suffix` gives what follows its path.
  auto on_topic = [&](std::string name, std::string description, std::string method, output kind,
                      std::function<std::string(const admin_args&)> suffix) {
    auto* sub = verb(s, *group, std::move(name), std::move(description),
                     checked([method, kind, suffix](const http::url& url, const admin_args& args) -> result<int> {
                       MAGNETAR_TRY(path, scalable_path(args.target));
                       return request(url, method, path + suffix(args), kind);
                     }));
    add_target(sub, a, "topic", help);
    return sub;
  };
  on_topic("create", "Create a scalable topic", "PUT", output::none,
           [](const admin_args& args) { return fmt::format("?numInitialSegments={}", args.count); })
      ->add_option("-n,--num-initial-segments", a.count, "Segments to start with")
      ->default_val(1);
  on_topic("get", "Show a scalable topic's layout (its segments' DAG)", "GET", output::json,
           [](const admin_args&) { return std::string(); });
  on_topic("delete", "Delete a scalable topic and its segments", "DELETE", output::none,
           [](const admin_args&) { return std::string(); });
  on_topic("split", "Split an active segment into two over its halves", "POST", output::none,
           [](const admin_args& args) { return fmt::format("/split/{}", args.count); })
      ->add_option("--segment", a.count, "The segment's id")
      ->required();
  on_topic("merge", "Merge two adjacent active segments into one", "POST", output::none,
           [](const admin_args& args) { return fmt::format("/merge/{}/{}", args.segments[0], args.segments[1]); })
      ->add_option("--segments", a.segments, "The two segments' ids, comma-separated")
      ->required()
      ->expected(2)
      ->delimiter(',');
}

}  // namespace

admin_command::admin_command(CLI::App& app) : _state(std::make_unique<state>()) {
  _command = app.add_subcommand("admin", "Administer a running broker through its admin REST API (as pulsar-admin)");
  _command->require_subcommand(0, 1);
  _command->add_option("--admin-url", _state->url, "Admin REST API of the broker")
      ->default_val("http://localhost:8080")
      ->envname("MAGNETAR_ADMIN_URL");
  _command->add_option("--auth-plugin", _state->auth_plugin,
                       "Authentication: org.apache.pulsar.client.impl.auth.AuthenticationToken (or token)");
  _command
      ->add_option("--auth-params", _state->auth_params,
                   "The plugin's parameters: token:<jwt>, file:///path/to/token, or {\"token\": \"...\"}")
      ->envname("MAGNETAR_AUTH_PARAMS");
  _command->add_option("--tls-trust-cert-path", _state->tls.trust_certs_file,
                       "PEM file of the CAs that an https:// admin URL's certificate must chain to (default: the "
                       "system's)");
  _command->add_flag("--tls-allow-insecure", _state->tls.allow_insecure_connection,
                     "Accept any certificate from an https:// admin URL");
  _command->add_flag("--tls-enable-hostname-verification", _state->tls.hostname_verification,
                     "The https:// admin URL's certificate must name its host");
  add_clusters(*_state, *_command);
  add_brokers(*_state, *_command);
  add_bookies(*_state, *_command);
  add_tenants(*_state, *_command);
  add_namespaces(*_state, *_command);
  add_topics(*_state, *_command);
  add_scalable_topics(*_state, *_command);
}

admin_command::~admin_command() = default;

bool admin_command::parsed() const { return _command->parsed(); }

int admin_command::run() const {
  if (!_state->action) {
    // The deepest command given, so that `magnetar admin topics` shows the topics verbs.
    const CLI::App* given = _command;
    for (auto* group : _command->get_subcommands()) given = group;
    fmt::print(stderr, "magnetar admin: a subcommand is required\n\n{}", given->help());
    return EXIT_FAILURE;
  }
  auto url = http::url::parse(_state->url, 8080, "admin URL");
  if (!url) return fail_with(url.error().detail());
  if (!_state->auth_params.empty() || !_state->auth_plugin.empty()) {
    auto credentials = auth::client_credentials::from(_state->auth_plugin, _state->auth_params);
    if (!credentials) return fail_with(credentials.error().detail());
    if (credentials.value().method() == "tls") {
      // AuthenticationTls: the certificate goes into the handshake, not a header.
      _state->tls.certificate_file = credentials.value().tls_certificate_file();
      _state->tls.key_file = credentials.value().tls_key_file();
    } else {
      auto header = credentials.value().http_authorization();
      if (!header) return fail_with(header.error().detail());
      call_defaults().authorization = std::move(header).value();
    }
  }
  call_defaults().tls = _state->tls;
  return _state->action(url.value(), _state->args);
}

}  // namespace magnetar::app
