// admin_api: clusters, tenants, namespaces and namespace policies.
#include "broker/admin/admin_api.h"
#include "broker/admin/admin_errors.h"
#include "broker/admin/stats_json.h"
#include "broker/api/errc.h"

#include <fmt/format.h>

namespace magnetar::broker::admin {

using nlohmann::json;

namespace {

http_response json_ok(const json& value) { return json_response(200, dump(value)); }

// An empty body is JSON null, as an absent entity in JAX-RS.
result<json> body_json(const incoming_request& request) {
  if (request.body.find_first_not_of(" \t\r\n") == std::string::npos) return json();
  return parse_json(request.body);
}

// The field path of a policy route with its placeholders filled: "{param}" from the
// path, "?name" from the query (the backlog quota's type defaults to destination_storage).
std::vector<std::string> resolve_field(const incoming_request& request, const std::vector<std::string>& field) {
  std::vector<std::string> out;
  for (const auto& part : field) {
    if (part.size() > 2 && part.front() == '{') {
      out.push_back(request.param(part.substr(1, part.size() - 2)));
    } else if (!part.empty() && part.front() == '?') {
      out.push_back(request.query_value(part.substr(1)).value_or("destination_storage"));
    } else {
      out.push_back(part);
    }
  }
  return out;
}

}  // namespace

awaitable<http_response> admin_api::list_clusters(incoming_request) {
  auto names = co_await _resources.list_clusters();
  if (!names) co_return error_to_response(names.error());
  co_return json_ok(names.value());
}

awaitable<http_response> admin_api::get_cluster(incoming_request request) {
  auto data = co_await _resources.get_cluster(request.param("cluster"));
  if (!data) co_return error_to_response(data.error());
  if (!data.value()) co_return error_response(404, "Cluster does not exist");
  co_return json_ok(*data.value());
}

awaitable<http_response> admin_api::list_tenants(incoming_request) {
  auto names = co_await _resources.list_tenants();
  if (!names) co_return error_to_response(names.error());
  co_return json_ok(names.value());
}

awaitable<http_response> admin_api::get_tenant(incoming_request request) {
  if (auto bad = detail::invalid_names(request)) co_return *bad;
  auto info = co_await _resources.get_tenant(request.param("tenant"));
  if (!info) co_return error_to_response(info.error());
  co_return json_ok(to_json(info.value()));
}

awaitable<http_response> admin_api::create_tenant(incoming_request request) {
  if (auto bad = detail::invalid_names(request)) co_return *bad;
  auto body = body_json(request);
  if (!body) co_return error_to_response(body.error());
  auto info = tenant_info_from_json(body.value());
  if (!info) co_return error_to_response(info.error());
  if (info.value().allowed_clusters.empty()) info.value().allowed_clusters.push_back(_resources.cluster_name());
  auto created = co_await _resources.create_tenant(request.param("tenant"), std::move(info).value());
  // Pulsar answers unknown clusters with 412.
  if (!created && created.error() == errc::invalid_request) co_return error_response(412, created.error().detail());
  if (!created) co_return error_to_response(created.error());
  co_return no_content();
}

awaitable<http_response> admin_api::update_tenant(incoming_request request) {
  if (auto bad = detail::invalid_names(request)) co_return *bad;
  auto body = body_json(request);
  if (!body) co_return error_to_response(body.error());
  auto info = tenant_info_from_json(body.value());
  if (!info) co_return error_to_response(info.error());
  auto updated = co_await _resources.update_tenant(request.param("tenant"), std::move(info).value());
  if (!updated) co_return error_to_response(updated.error());
  co_return no_content();
}

awaitable<http_response> admin_api::delete_tenant(incoming_request request) {
  if (auto bad = detail::invalid_names(request)) co_return *bad;
  auto deleted = co_await _resources.delete_tenant(request.param("tenant"));
  if (!deleted) co_return error_to_response(deleted.error());
  co_return no_content();
}

awaitable<http_response> admin_api::list_namespaces(incoming_request request) {
  if (auto bad = detail::invalid_names(request)) co_return *bad;
  auto names = co_await _resources.list_namespaces(request.param("tenant"));
  if (!names) co_return error_to_response(names.error());
  co_return json_ok(names.value());
}

awaitable<http_response> admin_api::get_policies(incoming_request request) {
  if (auto bad = detail::invalid_names(request)) co_return *bad;
  auto policies = co_await _resources.get_policies(detail::namespace_from(request));
  if (!policies) co_return error_to_response(policies.error());
  co_return json_ok(policies.value());
}

awaitable<http_response> admin_api::create_namespace(incoming_request request) {
  if (auto bad = detail::invalid_names(request)) co_return *bad;
  auto body = body_json(request);
  if (!body) co_return error_to_response(body.error());
  auto policies = std::move(body).value();
  if (!policies.is_null() && !policies.is_object()) co_return error_response(400, "Policies must be a JSON object");
  std::optional<int> bundles;
  if (auto query = request.query_value("bundles")) {
    try {
      bundles = std::stoi(*query);
    } catch (const std::exception&) {
      co_return error_response(400, fmt::format("Bad number of bundles '{}'", *query));
    }
  }
  if (policies.is_object() && policies.contains("bundles")) {
    const auto& given = policies["bundles"];
    if (given.is_object() && given.contains("numBundles") && given["numBundles"].is_number_integer()) {
      bundles = given["numBundles"].get<int>();
    }
    policies.erase("bundles");
  }
  auto created = co_await _resources.create_namespace(detail::namespace_from(request), std::move(policies), bundles);
  if (!created) co_return error_to_response(created.error());
  co_return no_content();
}

awaitable<http_response> admin_api::delete_namespace(incoming_request request) {
  if (auto bad = detail::invalid_names(request)) co_return *bad;
  auto deleted = co_await _resources.delete_namespace(detail::namespace_from(request));
  if (!deleted) co_return error_to_response(deleted.error());
  co_return no_content();
}

// ?mode=PERSISTENT (the default), NON_PERSISTENT (those active here) or ALL, as upstream.
awaitable<http_response> admin_api::list_namespace_topics(incoming_request request) {
  const auto mode = request.query_value("mode").value_or("PERSISTENT");
  if (mode != "PERSISTENT" && mode != "NON_PERSISTENT" && mode != "ALL") {
    co_return error_response(400, fmt::format("Unknown mode '{}' (PERSISTENT, NON_PERSISTENT or ALL)", mode));
  }
  if (mode == "PERSISTENT") co_return co_await list_topics(std::move(request));
  if (_topics == nullptr) co_return detail::not_ready();
  const auto ns = detail::namespace_from(request);
  auto exists = co_await _resources.namespace_exists(ns);
  if (!exists) co_return error_to_response(exists.error());
  if (!exists.value()) co_return error_response(404, "Namespace does not exist");
  std::vector<std::string> names;
  if (mode == "ALL") {
    auto persistent = co_await _topics->list_topics(ns);
    if (!persistent) co_return error_to_response(persistent.error());
    names = std::move(persistent).value();
  }
  for (auto& t : co_await _topics->list_non_persistent_topics(ns)) names.push_back(std::move(t));
  co_return json_response(200, dump(nlohmann::json(names)));
}

awaitable<http_response> admin_api::get_retention(incoming_request request) {
  if (auto bad = detail::invalid_names(request)) co_return *bad;
  auto retention = co_await _resources.get_retention(detail::namespace_from(request));
  if (!retention) co_return error_to_response(retention.error());
  if (!retention.value()) co_return no_content();
  co_return json_ok(to_json(*retention.value()));
}

awaitable<http_response> admin_api::set_retention(incoming_request request) {
  if (auto bad = detail::invalid_names(request)) co_return *bad;
  auto body = parse_json(request.body);
  if (!body) co_return error_to_response(body.error());
  auto retention = retention_from_json(body.value());
  if (!retention) co_return error_to_response(retention.error());
  auto set = co_await _resources.set_retention(detail::namespace_from(request), retention.value());
  if (!set) co_return error_to_response(set.error());
  co_await notify_policies_changed(request);
  co_return no_content();
}

// The namespace's topics on this broker (the standalone owns its one bundle, so a bundle's
// unload is the namespace's).
awaitable<http_response> admin_api::unload_namespace(incoming_request request) {
  if (auto bad = detail::invalid_names(request)) co_return *bad;
  const auto ns = detail::namespace_from(request);
  auto exists = co_await _resources.namespace_exists(ns);
  if (!exists) co_return error_to_response(exists.error());
  if (!exists.value()) co_return error_response(404, "Namespace does not exist");
  if (_urls.cluster != nullptr) {
    // Each bundle by its owner, wherever that is (upstream's broker does the same).
    auto bundles = co_await _urls.cluster->bundles(ns);
    if (!bundles) co_return error_to_response(bundles.error());
    const auto& boundaries = bundles.value()["boundaries"];
    for (std::size_t i = 0; i + 1 < boundaries.size(); ++i) {
      const auto bundle = fmt::format("{}_{}", boundaries[i].get<std::string>(), boundaries[i + 1].get<std::string>());
      if (auto unloaded = co_await _urls.cluster->unload_bundle(ns, bundle); !unloaded) {
        co_return error_to_response(unloaded.error());
      }
    }
    co_return no_content();
  }
  if (_topics == nullptr) co_return detail::not_ready();
  co_await _topics->unload_namespace(ns);
  co_return no_content();
}

awaitable<http_response> admin_api::remove_retention(incoming_request request) {
  std::vector<std::string> field{"retention_policies"};
  co_return co_await remove_policy(std::move(request), std::move(field));
}

awaitable<http_response> admin_api::get_policy(incoming_request request, std::vector<std::string> field_path) {
  if (auto bad = detail::invalid_names(request)) co_return *bad;
  auto policies = co_await _resources.get_policies(detail::namespace_from(request));
  if (!policies) co_return error_to_response(policies.error());
  const json* at = &policies.value();
  for (const auto& key : resolve_field(request, field_path)) {
    if (!at->is_object() || !at->contains(key)) co_return no_content();
    at = &(*at)[key];
  }
  if (at->is_null()) co_return no_content();
  co_return json_ok(*at);
}

awaitable<http_response> admin_api::set_policy(incoming_request request, std::vector<std::string> field_path,
                                               std::function<result<json>(const json&)> check) {
  if (auto bad = detail::invalid_names(request)) co_return *bad;
  auto body = parse_json(request.body);
  if (!body) co_return error_to_response(body.error());
  auto valid = check(body.value());
  if (!valid) co_return error_to_response(valid.error());
  auto field = resolve_field(request, field_path);
  auto value = std::move(valid).value();
  std::function<result<void>(json&)> change = [&field, &value](json& policies) -> result<void> {
    json* at = &policies;
    for (const auto& key : field) {
      if (!at->is_object()) *at = json::object();
      at = &(*at)[key];
    }
    *at = value;
    return success();
  };
  auto set = co_await _resources.update_policies(detail::namespace_from(request), std::move(change));
  if (!set) co_return error_to_response(set.error());
  co_await notify_policies_changed(request);
  co_return no_content();
}

awaitable<http_response> admin_api::remove_policy(incoming_request request, std::vector<std::string> field_path) {
  if (auto bad = detail::invalid_names(request)) co_return *bad;
  auto field = resolve_field(request, field_path);
  std::function<result<void>(json&)> change = [&field](json& policies) -> result<void> {
    json* at = &policies;
    for (std::size_t i = 0; i + 1 < field.size(); ++i) {
      if (!at->is_object() || !at->contains(field[i])) return success();
      at = &(*at)[field[i]];
    }
    if (at->is_object()) at->erase(field.back());
    return success();
  };
  auto removed = co_await _resources.update_policies(detail::namespace_from(request), std::move(change));
  if (!removed) co_return error_to_response(removed.error());
  co_await notify_policies_changed(request);
  co_return no_content();
}

awaitable<void> admin_api::notify_policies_changed(const incoming_request& request) {
  if (_topics != nullptr) co_await _topics->policies_changed(detail::namespace_from(request));
}

}  // namespace magnetar::broker::admin
