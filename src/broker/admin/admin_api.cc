#include "broker/admin/admin_api.h"

#include "broker/admin/admin_errors.h"
#include "broker/admin/prometheus.h"
#include "broker/api/errc.h"

namespace magnetar::broker::admin {

using nlohmann::json;

namespace detail {

http_response not_ready() { return error_response(503, "The broker's topic service is not ready"); }

}  // namespace detail

admin_api::admin_api(namespace_resources& resources, topic_admin* topics) : _resources(resources), _topics(topics) {}

void admin_api::register_routes(router& routes) {
  using member = awaitable<http_response> (admin_api::*)(incoming_request);
  auto add = [&](const char* method, std::string_view pattern, access who, member fn) {
    routes.add(method, pattern, who, [this, fn](incoming_request r) { return (this->*fn)(std::move(r)); });
  };
  // A topic's own call: in a cluster, its owner serves it (a 307 from anyone else).
  auto owned = [&](const char* method, std::string_view pattern, access who, member fn) {
    routes.add(method, pattern, who, [this, fn](incoming_request r) -> awaitable<http_response> {
      if (auto moved = co_await redirect_to_owner(r)) co_return std::move(*moved);
      co_return co_await (this->*fn)(std::move(r));
    });
  };
  // A namespace policy: its tenant's admins read and write it.
  auto read_policy = [&](std::string_view pattern, std::vector<std::string> field) {
    routes.add("GET", pattern, access::tenant_admin,
               [this, field](incoming_request r) { return get_policy(std::move(r), field); });
  };
  auto policy = [&](std::string_view pattern, std::vector<std::string> field,
                    std::function<result<json>(const json&)> check, bool removable) {
    read_policy(pattern, field);
    routes.add("POST", pattern, access::tenant_admin,
               [this, field, check](incoming_request r) { return set_policy(std::move(r), field, check); });
    if (removable) {
      routes.add("DELETE", pattern, access::tenant_admin,
                 [this, field](incoming_request r) { return remove_policy(std::move(r), field); });
    }
  };

  add("GET", "/admin/v2/clusters", access::authenticated, &admin_api::list_clusters);

  add("GET", "/admin/v2/bookies/all", access::super_user, &admin_api::list_bookies);
  add("GET", "/admin/v2/bookies/underreplicated", access::super_user, &admin_api::list_underreplicated);
  add("GET", "/admin/v2/clusters/{cluster}", access::authenticated, &admin_api::get_cluster);
  add("PUT", "/admin/v2/clusters/{cluster}", access::super_user, &admin_api::create_cluster);
  add("POST", "/admin/v2/clusters/{cluster}", access::super_user, &admin_api::update_cluster);
  add("DELETE", "/admin/v2/clusters/{cluster}", access::super_user, &admin_api::delete_cluster);
  add("GET", "/admin/v2/brokers/{cluster}", access::super_user, &admin_api::list_brokers);
  add("GET", "/admin/v2/brokers/leaderBroker", access::super_user, &admin_api::leader_broker);
  add("GET", "/admin/v2/brokers/health", access::super_user, &admin_api::health_check);

  add("GET", "/admin/v2/tenants", access::super_user, &admin_api::list_tenants);
  add("GET", "/admin/v2/tenants/{tenant}", access::tenant_admin, &admin_api::get_tenant);
  add("PUT", "/admin/v2/tenants/{tenant}", access::super_user, &admin_api::create_tenant);
  add("POST", "/admin/v2/tenants/{tenant}", access::super_user, &admin_api::update_tenant);
  add("DELETE", "/admin/v2/tenants/{tenant}", access::super_user, &admin_api::delete_tenant);

  add("GET", "/admin/v2/namespaces/{tenant}", access::tenant_admin, &admin_api::list_namespaces);
  add("GET", "/admin/v2/namespaces/{tenant}/{namespace}", access::tenant_admin, &admin_api::get_policies);
  add("PUT", "/admin/v2/namespaces/{tenant}/{namespace}", access::tenant_admin, &admin_api::create_namespace);
  add("DELETE", "/admin/v2/namespaces/{tenant}/{namespace}", access::tenant_admin, &admin_api::delete_namespace);
  add("GET", "/admin/v2/namespaces/{tenant}/{namespace}/topics", access::namespace_listing,
      &admin_api::list_namespace_topics);
  add("PUT", "/admin/v2/namespaces/{tenant}/{namespace}/unload", access::tenant_admin, &admin_api::unload_namespace);
  add("PUT", "/admin/v2/namespaces/{tenant}/{namespace}/{bundle}/unload", access::tenant_admin,
      &admin_api::unload_bundle);
  add("PUT", "/admin/v2/namespaces/{tenant}/{namespace}/{bundle}/split", access::tenant_admin,
      &admin_api::split_bundle);
  add("GET", "/admin/v2/namespaces/{tenant}/{namespace}/bundles", access::tenant_admin, &admin_api::namespace_bundles);
  add("GET", "/admin/v2/namespaces/{tenant}/{namespace}/retention", access::tenant_admin, &admin_api::get_retention);
  add("POST", "/admin/v2/namespaces/{tenant}/{namespace}/retention", access::tenant_admin, &admin_api::set_retention);
  add("DELETE", "/admin/v2/namespaces/{tenant}/{namespace}/retention", access::tenant_admin,
      &admin_api::remove_retention);
  auto boolean = [](const json& v) -> result<json> {
    if (!v.is_boolean()) return fail(errc::invalid_request, "Expected true or false");
    return v;
  };
  auto non_negative = [](const json& v) -> result<json> {
    if (!v.is_number_integer() || v.get<std::int64_t>() < 0) {
      return fail(errc::invalid_request, "Expected a non-negative integer");
    }
    return v;
  };
  policy("/admin/v2/namespaces/{tenant}/{namespace}/deduplication", {"deduplicationEnabled"}, boolean, true);
  policy("/admin/v2/namespaces/{tenant}/{namespace}/messageTTL", {"message_ttl_in_seconds"}, non_negative, true);
  policy("/admin/v2/namespaces/{tenant}/{namespace}/maxProducersPerTopic", {"max_producers_per_topic"}, non_negative,
         true);
  policy("/admin/v2/namespaces/{tenant}/{namespace}/maxConsumersPerTopic", {"max_consumers_per_topic"}, non_negative,
         true);
  read_policy("/admin/v2/namespaces/{tenant}/{namespace}/replication", {"replication_clusters"});
  add("POST", "/admin/v2/namespaces/{tenant}/{namespace}/replication", access::tenant_admin,
      &admin_api::set_replication_clusters);
  const std::string permissions = "/admin/v2/namespaces/{tenant}/{namespace}/permissions";
  add("GET", permissions, access::tenant_admin, &admin_api::namespace_permissions);
  add("POST", permissions + "/{role}", access::tenant_admin, &admin_api::grant_namespace_permission);
  add("DELETE", permissions + "/{role}", access::tenant_admin, &admin_api::revoke_namespace_permission);
  add("GET", permissions + "/subscription", access::tenant_admin, &admin_api::subscription_permissions);
  add("POST", permissions + "/subscription/{subscription}", access::tenant_admin,
      &admin_api::grant_subscription_permission);
  add("DELETE", permissions + "/{subscription}/{role}", access::tenant_admin,
      &admin_api::revoke_subscription_permission);
  // Pulsar names the quota's type in the query (backlogQuotaType, destination_storage
  // by default); the handler maps it to the field's last element. Stored in upstream's
  // form whatever names the body used.
  policy(
      "/admin/v2/namespaces/{tenant}/{namespace}/backlogQuota", {"backlog_quota_map", "?backlogQuotaType"},
      [](const json& v) -> result<json> {
        MAGNETAR_TRY(quota, backlog_quota_from_json(v));
        return to_json(quota);
      },
      true);
  read_policy("/admin/v2/namespaces/{tenant}/{namespace}/backlogQuotaMap", {"backlog_quota_map"});

  const std::string topic = "/admin/v2/persistent/{tenant}/{namespace}/{topic}";
  add("GET", "/admin/v2/persistent/{tenant}/{namespace}", access::namespace_listing, &admin_api::list_topics);
  add("GET", "/admin/v2/persistent/{tenant}/{namespace}/partitioned", access::namespace_listing,
      &admin_api::list_partitioned);
  owned("PUT", topic, access::tenant_admin, &admin_api::create_topic);
  owned("DELETE", topic, access::tenant_admin, &admin_api::delete_topic);
  add("PUT", topic + "/partitions", access::tenant_admin, &admin_api::create_partitioned);
  add("POST", topic + "/partitions", access::tenant_admin, &admin_api::update_partitioned);
  add("GET", topic + "/permissions", access::tenant_admin, &admin_api::topic_permissions);
  add("POST", topic + "/permissions/{role}", access::tenant_admin, &admin_api::grant_topic_permission);
  add("DELETE", topic + "/permissions/{role}", access::tenant_admin, &admin_api::revoke_topic_permission);
  add("GET", topic + "/partitions", access::topic_lookup, &admin_api::get_partitions);
  add("DELETE", topic + "/partitions", access::tenant_admin, &admin_api::delete_partitioned);
  owned("GET", topic + "/stats", access::topic_lookup, &admin_api::stats);
  add("GET", topic + "/partitioned-stats", access::topic_lookup, &admin_api::partitioned_stats);
  owned("GET", topic + "/internalStats", access::topic_lookup, &admin_api::internal_stats);
  owned("POST", topic + "/terminate", access::tenant_admin, &admin_api::terminate);
  owned("PUT", topic + "/unload", access::tenant_admin, &admin_api::unload_topic);
  // Non-persistent topics: nothing stored, so what applies is their partitions, stats and unload.
  const std::string volatile_topic = "/admin/v2/non-persistent/{tenant}/{namespace}/{topic}";
  add("PUT", volatile_topic + "/partitions", access::tenant_admin, &admin_api::create_partitioned);
  add("POST", volatile_topic + "/partitions", access::tenant_admin, &admin_api::update_partitioned);
  add("GET", volatile_topic + "/partitions", access::topic_lookup, &admin_api::get_partitions);
  add("DELETE", volatile_topic + "/partitions", access::tenant_admin, &admin_api::delete_partitioned);
  owned("GET", volatile_topic + "/stats", access::topic_lookup, &admin_api::stats);
  add("GET", volatile_topic + "/partitioned-stats", access::topic_lookup, &admin_api::partitioned_stats);
  owned("PUT", volatile_topic + "/unload", access::tenant_admin, &admin_api::unload_topic);
  owned("GET", topic + "/subscriptions", access::topic_consume, &admin_api::list_subscriptions);
  owned("PUT", topic + "/subscription/{subscription}", access::topic_consume, &admin_api::create_subscription);
  owned("DELETE", topic + "/subscription/{subscription}", access::topic_consume, &admin_api::delete_subscription);
  owned("POST", topic + "/subscription/{subscription}/resetcursor/{timestamp}", access::topic_consume,
        &admin_api::reset_cursor_to_time);
  owned("POST", topic + "/subscription/{subscription}/resetcursor", access::topic_consume, &admin_api::reset_cursor);
  owned("POST", topic + "/subscription/{subscription}/skip/{count}", access::topic_consume, &admin_api::skip);
  owned("POST", topic + "/subscription/{subscription}/skip_all", access::topic_consume, &admin_api::skip_all);

  const std::string scalable = "/admin/v2/scalable/{tenant}/{namespace}";
  add("GET", scalable, access::namespace_listing, &admin_api::list_scalable);
  add("PUT", scalable + "/{topic}", access::tenant_admin, &admin_api::create_scalable);
  add("GET", scalable + "/{topic}", access::topic_lookup, &admin_api::get_scalable);
  add("DELETE", scalable + "/{topic}", access::tenant_admin, &admin_api::delete_scalable);
  add("POST", scalable + "/{topic}/split/{segment}", access::tenant_admin, &admin_api::split_scalable);
  add("POST", scalable + "/{topic}/merge/{first}/{second}", access::tenant_admin, &admin_api::merge_scalable);

  add("GET", "/lookup/v2/topic/{domain}/{tenant}/{namespace}/{topic}", access::topic_lookup, &admin_api::lookup_topic);
  add("GET", "/lookup/v2/destination/{domain}/{tenant}/{namespace}/{topic}", access::topic_lookup,
      &admin_api::lookup_topic);
  add("GET", "/metrics", access::anyone, &admin_api::metrics);
}

awaitable<result<std::vector<wire::topic_name>>> admin_api::targets(wire::topic_name topic) {
  auto partitions = co_await _resources.partitioned_partitions(topic);
  if (!partitions) co_return fail(std::move(partitions).error());
  std::vector<wire::topic_name> out;
  if (partitions.value() == 0 || topic.partition() >= 0) {
    out.push_back(topic);
  } else {
    for (int i = 0; i < partitions.value(); ++i) out.push_back(topic.partition_of(i));
  }
  co_return out;
}

awaitable<http_response> admin_api::for_each_target(wire::topic_name topic, target_operation operation) {
  if (_topics == nullptr) co_return detail::not_ready();
  auto all = co_await targets(topic);
  if (!all) co_return error_to_response(all.error());
  for (const auto& each : all.value()) {
    auto done = co_await operation(each);
    if (!done) co_return error_to_response(done.error());
  }
  co_return no_content();
}

awaitable<http_response> admin_api::metrics(incoming_request) {
  std::map<std::string, topic_stats> topics;
  broker_metrics broker;
  if (_topics != nullptr) {
    topics = co_await _topics->all_stats();
    broker = co_await _topics->metrics();
  }
  co_return text_response(200, render_metrics(_resources.cluster_name(), topics, broker),
                          "text/plain; version=0.0.4; charset=utf-8");
}

}  // namespace magnetar::broker::admin
