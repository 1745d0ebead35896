// admin_api: the handlers of Pulsar's /admin/v2 REST paths and of /metrics, a
// translation of paths, query parameters and JSON into calls of namespace_resources
// (clusters, tenants, namespaces, partitioned-topic metadata) and topic_admin (topics,
// stats, subscriptions), and of their results and errors into Pulsar's JSON and statuses.
//
//   admin_api_namespaces.cc  clusters, tenants, namespaces and namespace policies
//   admin_api_permissions.cc who may use a namespace's topics (grants, subscription roles)
//   admin_api_topics.cc      persistent topics, partitioned topics, stats, subscriptions
//   admin_api_scalable.cc    scalable topics (topic://): create, layout, split, merge
//   admin_api_lookup.cc      /lookup/v2: where a topic is served, for HTTP service URLs
//   admin_api_cluster.cc     a cluster's leader, health, bundles, and the 307 to a topic's owner
//   admin_api.cc             route table, shared helpers, /metrics
//
// Operations on a partitioned topic's subscriptions apply to every partition, as in
// Pulsar. Without a topic_admin (the broker not up yet) topic routes answer 503.
// Thread-safety: handlers run concurrently on the server's shard; the class holds only
// references and constants.
#pragma once

#include "auth/authorization.h"
#include "broker/admin/http_types.h"
#include "broker/admin/request_names.h"
#include "broker/admin/router.h"
#include "broker/api/advertised_listeners.h"
#include "broker/api/cluster_admin.h"
#include "broker/api/topic_admin.h"
#include "broker/api/topic_ownership.h"
#include "broker/namespace/namespace_resources.h"

#include <atomic>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <variant>
#include <vector>

namespace magnetar::broker::admin {

// Where this broker is reached, for lookups over HTTP; without a broker URL lookups
// answer 503. The web URLs are http[s]://<advertised_address>:<the servers' ports>.
struct service_urls {
  std::string broker_url;      // pulsar:// (empty with the plaintext port off)
  std::string broker_url_tls;  // pulsar+ssl:// (empty without brokerServicePortTls)
  std::string advertised_address;
  std::vector<advertised_listener> listeners;
  bool allow_auto_topic_creation = true;
  // In a cluster: the owner of a topic's bundle answers, or a redirect (null: this broker).
  topic_ownership* ownership = nullptr;
  // In a cluster: bundles, the leader, health (null: a standalone).
  cluster_admin* cluster = nullptr;
};

class admin_api {
 public:
  // `topics` may be null (topic routes answer 503); both must outlive the api.
  admin_api(namespace_resources& resources, topic_admin* topics);

  // Before the server serves.
  void set_service_urls(service_urls urls) { _urls = std::move(urls); }
  // Once the servers' ports are bound (any thread); 0 for one that is off.
  void set_web_ports(std::uint16_t port, std::uint16_t tls_port) {
    _web_port.store(port);
    _web_port_tls.store(tls_port);
  }

  void register_routes(router& routes);

 private:
  // admin_api_namespaces.cc
  awaitable<http_response> list_clusters(incoming_request request);
  awaitable<http_response> get_cluster(incoming_request request);
  awaitable<http_response> create_cluster(incoming_request request);
  awaitable<http_response> update_cluster(incoming_request request);
  awaitable<http_response> delete_cluster(incoming_request request);
  awaitable<http_response> set_replication_clusters(incoming_request request);
  awaitable<http_response> list_brokers(incoming_request request);
  awaitable<http_response> cluster_lookup(const incoming_request& request, const wire::topic_name& topic);
  awaitable<http_response> list_tenants(incoming_request request);
  awaitable<http_response> get_tenant(incoming_request request);
  awaitable<http_response> create_tenant(incoming_request request);
  awaitable<http_response> update_tenant(incoming_request request);
  awaitable<http_response> delete_tenant(incoming_request request);
  awaitable<http_response> list_namespaces(incoming_request request);
  awaitable<http_response> get_policies(incoming_request request);
  awaitable<http_response> create_namespace(incoming_request request);
  awaitable<http_response> delete_namespace(incoming_request request);
  awaitable<http_response> list_namespace_topics(incoming_request request);
  awaitable<http_response> get_retention(incoming_request request);
  awaitable<http_response> set_retention(incoming_request request);
  awaitable<http_response> remove_retention(incoming_request request);
  awaitable<http_response> unload_namespace(incoming_request request);
  // A Policies field, read (nullopt fields answer 204) or written: `check` validates the
  // body and gives the value to store.
  awaitable<http_response> get_policy(incoming_request request, std::vector<std::string> field_path);
  awaitable<http_response> set_policy(incoming_request request, std::vector<std::string> field_path,
                                      std::function<result<nlohmann::json>(const nlohmann::json&)> check);
  awaitable<http_response> remove_policy(incoming_request request, std::vector<std::string> field_path);
  // Tells the broker's loaded topics of the namespace (when there is a broker).
  awaitable<void> notify_policies_changed(const incoming_request& request);

  // admin_api_permissions.cc
  awaitable<http_response> namespace_permissions(incoming_request request);
  awaitable<http_response> grant_namespace_permission(incoming_request request);
  awaitable<http_response> revoke_namespace_permission(incoming_request request);
  awaitable<http_response> subscription_permissions(incoming_request request);
  awaitable<http_response> grant_subscription_permission(incoming_request request);
  awaitable<http_response> revoke_subscription_permission(incoming_request request);
  awaitable<http_response> topic_permissions(incoming_request request);
  awaitable<http_response> grant_topic_permission(incoming_request request);
  awaitable<http_response> revoke_topic_permission(incoming_request request);
  // The namespace's auth_policies, or the answer that says why not (a bad name, none such).
  awaitable<std::variant<auth::auth_policies, http_response>> read_auth_policies(const incoming_request& request);
  // Read-modify-write of the namespace's Policies; 204, or the failure.
  awaitable<http_response> update_auth_policies(const incoming_request& request,
                                                std::function<result<void>(nlohmann::json&)> change);

  // admin_api_topics.cc
  awaitable<http_response> list_topics(incoming_request request);
  awaitable<http_response> list_partitioned(incoming_request request);
  awaitable<http_response> create_topic(incoming_request request);
  awaitable<http_response> delete_topic(incoming_request request);
  awaitable<http_response> create_partitioned(incoming_request request);
  awaitable<http_response> update_partitioned(incoming_request request);
  awaitable<http_response> get_partitions(incoming_request request);
  awaitable<http_response> delete_partitioned(incoming_request request);
  awaitable<http_response> stats(incoming_request request);
  awaitable<http_response> partitioned_stats(incoming_request request);
  awaitable<http_response> internal_stats(incoming_request request);
  awaitable<http_response> terminate(incoming_request request);
  awaitable<http_response> unload_topic(incoming_request request);
  awaitable<http_response> list_subscriptions(incoming_request request);
  awaitable<http_response> create_subscription(incoming_request request);
  awaitable<http_response> delete_subscription(incoming_request request);
  awaitable<http_response> reset_cursor_to_time(incoming_request request);
  awaitable<http_response> reset_cursor(incoming_request request);
  awaitable<http_response> skip(incoming_request request);
  awaitable<http_response> skip_all(incoming_request request);

  // admin_api_scalable.cc
  scalable_admin* scalable() const;
  awaitable<http_response> list_scalable(incoming_request request);
  awaitable<http_response> create_scalable(incoming_request request);
  awaitable<http_response> get_scalable(incoming_request request);
  awaitable<http_response> delete_scalable(incoming_request request);
  awaitable<http_response> split_scalable(incoming_request request);
  awaitable<http_response> merge_scalable(incoming_request request);

  // admin_api_bookies.cc
  awaitable<http_response> list_bookies(incoming_request request);
  awaitable<http_response> list_underreplicated(incoming_request request);

  // admin_api_cluster.cc
  awaitable<http_response> leader_broker(incoming_request request);
  awaitable<http_response> health_check(incoming_request request);
  awaitable<http_response> namespace_bundles(incoming_request request);
  awaitable<http_response> unload_bundle(incoming_request request);
  awaitable<http_response> split_bundle(incoming_request request);
  // In a cluster, a topic's admin call is served by its owner: a 307 there, or for a
  // partitioned topic's base name the call made for each partition (each_partition);
  // nullopt when this broker serves it (or a standalone).
  awaitable<std::optional<http_response>> redirect_to_owner(const incoming_request& request);
  // The call once per partition through this broker's own API, so that each owner
  // serves its partition: the first failure; else 204 for a write, or the partitions'
  // answers merged for a read (lists joined, stats summed; a partition never used is
  // left out).
  // partitioned-stats in a cluster: each partition's stats from its owner, summed.
  awaitable<http_response> cluster_partitioned_stats(const incoming_request& request, const wire::topic_name& topic,
                                                     int partitions);
  awaitable<http_response> each_partition(const incoming_request& request, const wire::topic_name& topic,
                                          int partitions);

  // admin_api_lookup.cc
  awaitable<http_response> lookup_topic(incoming_request request);

  // admin_api.cc
  awaitable<http_response> metrics(incoming_request request);

  // The topics an operation on `topic` applies to: its partitions when partitioned.
  awaitable<result<std::vector<wire::topic_name>>> targets(wire::topic_name topic);
  using target_operation = std::function<awaitable<result<void>>(wire::topic_name)>;
  // Runs `operation` on each target in turn; 204, or the first failure.
  awaitable<http_response> for_each_target(wire::topic_name topic, target_operation operation);

  namespace_resources& _resources;
  topic_admin* const _topics;
  service_urls _urls;
  std::atomic<std::uint16_t> _web_port{0};
  std::atomic<std::uint16_t> _web_port_tls{0};
  // This broker's own URLs from the above, "" for what is off.
  lookup_urls own_urls() const;
  // upstream's broker id, advertisedAddress:webServicePort (the TLS port without one).
  std::string own_broker_id() const;
};

// Shared by the handler files.
namespace detail {
http_response not_ready();
}  // namespace detail

}  // namespace magnetar::broker::admin
