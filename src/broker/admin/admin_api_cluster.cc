// admin_api: what a cluster of brokers adds to the admin API: the leader, the health
// check, a namespace's bundles, unloading and splitting one, and the 307 that sends a
// topic's admin call to the topic's owner. A standalone answers these for itself.
#include "broker/admin/admin_api.h"
#include "broker/admin/admin_errors.h"
#include "broker/admin/stats_json.h"
#include "http/url.h"

#include <fmt/format.h>

namespace magnetar::broker::admin {

using nlohmann::json;

namespace {

// The broker's web URL in the scheme the request came in (the other when it has only that).
const std::string& web_url_for(const incoming_request& request, const lookup_target& target) {
  if (target.http_url.empty() || (request.secure && !target.http_url_tls.empty())) return target.http_url_tls;
  return target.http_url;
}

// The path and query again, at `http_url`: where upstream's 307 sends an admin call.
http_response moved_to(const std::string& http_url, const incoming_request& request, bool authoritative) {
  auto moved = error_response(307, fmt::format("Served by {}", http_url));
  moved.location = http_url + request.target;
  if (authoritative && request.query.count("authoritative") == 0) {
    moved.location += request.target.find('?') == std::string::npos ? "?authoritative=true" : "&authoritative=true";
  }
  return moved;
}

}  // namespace

awaitable<http_response> admin_api::leader_broker(incoming_request) {
  if (_urls.cluster == nullptr) {
    const auto own = own_urls();
    co_return json_response(200, dump(json{{"brokerId", own_broker_id()},
                                           {"serviceUrl", own.http_url.empty() ? own.http_url_tls : own.http_url}}));
  }
  auto leader = co_await _urls.cluster->leader();
  if (!leader) co_return error_to_response(leader.error());
  co_return json_response(200,
                          dump(json{{"brokerId", leader.value().broker_id}, {"serviceUrl", leader.value().http_url}}));
}

awaitable<http_response> admin_api::health_check(incoming_request) {
  if (_topics == nullptr) co_return detail::not_ready();
  if (_urls.cluster != nullptr) {
    if (auto healthy = co_await _urls.cluster->health(); !healthy) co_return error_to_response(healthy.error());
  }
  co_return text_response(200, "ok");
}

awaitable<http_response> admin_api::namespace_bundles(incoming_request request) {
  if (auto bad = detail::invalid_names(request)) co_return *bad;
  const auto ns = detail::namespace_from(request);
  auto policies = co_await _resources.get_policies(ns);
  if (!policies) co_return error_to_response(policies.error());
  if (_urls.cluster != nullptr) {
    auto bundles = co_await _urls.cluster->bundles(ns);
    if (!bundles) co_return error_to_response(bundles.error());
    co_return json_response(200, dump(bundles.value()));
  }
  if (policies.value().contains("bundles")) co_return json_response(200, dump(policies.value()["bundles"]));
  co_return json_response(200, dump(json{{"boundaries", {"0x00000000", "0xffffffff"}}, {"numBundles", 1}}));
}

awaitable<http_response> admin_api::unload_bundle(incoming_request request) {
  if (_urls.cluster == nullptr) co_return co_await unload_namespace(std::move(request));  // one broker has it all
  if (auto bad = detail::invalid_names(request)) co_return *bad;
  const auto ns = detail::namespace_from(request);
  const auto& bundle = request.param("bundle");
  auto owner = co_await _urls.cluster->bundle_owner(ns, bundle);
  if (!owner) co_return error_to_response(owner.error());
  if (owner.value().empty()) co_return no_content();  // nobody has it loaded
  if (!_urls.cluster->is_self(owner.value())) co_return moved_to(web_url_for(request, owner.value()), request, false);
  auto unloaded = co_await _urls.cluster->unload_bundle(ns, bundle);
  if (!unloaded) co_return error_to_response(unloaded.error());
  co_return no_content();
}

awaitable<http_response> admin_api::split_bundle(incoming_request request) {
  if (auto bad = detail::invalid_names(request)) co_return *bad;
  if (_urls.cluster == nullptr) {
    co_return error_response(412, "Bundles are split in a cluster of brokers: a standalone serves every bundle itself");
  }
  const auto ns = detail::namespace_from(request);
  const auto& bundle = request.param("bundle");
  auto owner = co_await _urls.cluster->bundle_owner(ns, bundle);
  if (!owner) co_return error_to_response(owner.error());
  if (owner.value().empty()) {
    co_return error_response(503, fmt::format("Bundle {}/{} is not owned by any broker: look up one of its topics "
                                              "first",
                                              ns, bundle));
  }
  if (!_urls.cluster->is_self(owner.value())) co_return moved_to(web_url_for(request, owner.value()), request, false);
  auto split = co_await _urls.cluster->split_bundle(ns, bundle, request.query_flag("unload"));
  if (!split) co_return error_to_response(split.error());
  co_return no_content();
}

awaitable<std::optional<http_response>> admin_api::redirect_to_owner(const incoming_request& request) {
  if (_urls.ownership == nullptr || _urls.cluster == nullptr) co_return std::nullopt;
  auto topic = detail::topic_from(request);
  if (!topic) co_return std::nullopt;  // the handler answers the bad name
  if (topic.value().partition() < 0) {
    auto partitions = co_await _resources.partitioned_partitions(topic.value());
    if (!partitions) co_return error_to_response(partitions.error());
    if (partitions.value() > 0) co_return co_await each_partition(request, topic.value(), partitions.value());
  }
  auto target = co_await _urls.ownership->lookup(topic.value(), request.query_flag("authoritative"));
  if (!target) co_return error_to_response(target.error());
  if (!target.value().redirect && _urls.cluster->is_self(target.value())) co_return std::nullopt;
  co_return moved_to(web_url_for(request, target.value()), request, target.value().redirect);
}

awaitable<http_response> admin_api::cluster_partitioned_stats(const incoming_request& request,
                                                              const wire::topic_name& topic, int partitions) {
  json total;
  json each = json::object();
  for (int i = 0; i < partitions; ++i) {
    const auto partition = topic.partition_of(i);
    const auto target = fmt::format("/admin/v2/{}/{}/{}/{}/stats", partition.domain(), partition.tenant(),
                                    partition.namespace_part(), http::encode_path_segment(partition.local_name()));
    auto reply = co_await _urls.cluster->call_admin("GET", target, "");
    if (!reply) co_return error_to_response(reply.error());
    if (reply.value().status == 404) continue;  // never used: empty
    if (reply.value().status != 200) co_return json_response(reply.value().status, std::move(reply.value().body));
    auto stats = json::parse(reply.value().body, nullptr, false);
    merge_stats_json(total, stats);
    each[partition.full()] = std::move(stats);
  }
  if (total.is_null()) total = to_json(topic_stats{});
  const double rate_in = total.value("msgRateIn", 0.0);
  total["averageMsgSize"] = rate_in > 0 ? total.value("msgThroughputIn", 0.0) / rate_in : 0.0;
  total["metadata"] = json{{"partitions", partitions}};
  total["partitions"] = request.query_flag("perPartition", true) ? std::move(each) : json::object();
  co_return json_response(200, dump(total));
}

awaitable<http_response> admin_api::each_partition(const incoming_request& request, const wire::topic_name& topic,
                                                   int partitions) {
  const auto query_at = request.target.find('?');
  const std::string path = request.target.substr(0, query_at);
  const std::string query = query_at == std::string::npos ? "" : request.target.substr(query_at);
  // "/admin/v2/<domain>/<tenant>/<namespace>/<topic>[/...]": the topic follows the 6th '/'.
  std::size_t at = 0;
  for (int i = 0; i < 5 && at != std::string::npos; ++i) at = path.find('/', at + 1);
  if (at == std::string::npos) co_return error_response(400, "Not a topic's path: " + path);
  const auto end = path.find('/', at + 1);
  const std::string head = path.substr(0, at + 1);
  const std::string rest = end == std::string::npos ? "" : path.substr(end);
  const bool read = request.method == "GET";
  json merged;
  for (int i = 0; i < partitions; ++i) {
    const auto target = head + http::encode_path_segment(topic.partition_of(i).local_name()) + rest + query;
    auto reply = co_await _urls.cluster->call_admin(request.method, target, request.body);
    if (!reply) co_return error_to_response(reply.error());
    if (read && reply.value().status == 404) continue;
    if (reply.value().status >= 300) {
      http_response failed = json_response(reply.value().status, std::move(reply.value().body));
      co_return failed;
    }
    if (read) merge_stats_json(merged, json::parse(reply.value().body, nullptr, false));
  }
  if (!read) co_return no_content();
  co_return json_response(200, dump(merged.is_null() ? json::array() : merged));
}

}  // namespace magnetar::broker::admin
