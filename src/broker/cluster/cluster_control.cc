#include "broker/cluster/cluster_control.h"

#include "broker/api/errc.h"
#include "broker/cluster/load_manager.h"

#include <fmt/format.h>

#include <algorithm>

namespace magnetar::broker::cluster {

using nlohmann::json;

cluster_control::cluster_control(meta::store& store, bundle_ownership& ownership, io::blocking_pool& pool,
                                 auth::client_credentials credentials, std::optional<tls::client_settings> tls)
    : _store(store), _ownership(ownership), _pool(pool), _credentials(std::move(credentials)), _tls(std::move(tls)) {}

bool cluster_control::is_self(const lookup_target& target) const {
  const auto& self = _ownership.self();
  return target.http_url == self.http_url && target.http_url_tls == self.http_url_tls;
}

std::string cluster_control::admin_url_of(const std::string& http_url, const std::string& http_url_tls) const {
  if (http_url_tls.empty()) return http_url;
  if (_tls || http_url.empty()) return http_url_tls;
  return http_url;
}

result<http::call_options> cluster_control::call_options(std::string server_name) const {
  http::call_options options{.server_name = std::move(server_name)};
  auto authorization = _credentials.http_authorization();
  if (!authorization) {
    return fail(errc::service_not_ready,
                fmt::format("brokerClientAuthenticationParameters: {}", authorization.error().detail()));
  }
  options.authorization = std::move(authorization).value();
  if (_tls) options.tls = *_tls;
  return options;
}

awaitable<result<json>> cluster_control::bundles(std::string namespace_name) {
  MAGNETAR_CO_TRY(ranges, co_await _ownership.bundles_of(std::move(namespace_name)));
  co_return bundles_json(ranges);
}

awaitable<result<bundle_range>> cluster_control::bundle_of(const std::string& namespace_name,
                                                           const std::string& bundle) {
  MAGNETAR_CO_TRY(range, parse_bundle_range(bundle));
  MAGNETAR_CO_TRY(ranges, co_await _ownership.bundles_of(namespace_name));
  if (std::find(ranges.begin(), ranges.end(), range) == ranges.end()) {
    co_return fail(errc::invalid_request, fmt::format("{} is not a bundle of namespace {}", bundle, namespace_name));
  }
  co_return range;
}

awaitable<result<lookup_target>> cluster_control::bundle_owner(std::string namespace_name, std::string bundle) {
  MAGNETAR_CO_TRY(range, co_await bundle_of(namespace_name, bundle));
  co_return co_await _ownership.owner_of(namespace_name, range);
}

awaitable<result<void>> cluster_control::unload_bundle(std::string namespace_name, std::string bundle) {
  MAGNETAR_CO_TRY(range, co_await bundle_of(namespace_name, bundle));
  MAGNETAR_CO_TRY(owner, co_await _ownership.owner_of(namespace_name, range));
  if (owner.empty()) co_return success();
  if (is_self(owner)) co_return co_await _ownership.release(namespace_name, range);
  const auto owner_url = admin_url_of(owner.http_url, owner.http_url_tls);
  MAGNETAR_CO_TRY(where, http::url::parse(owner_url));
  const auto path = fmt::format("/admin/v2/namespaces/{}/{}/unload", namespace_name, bundle);
  auto reply = co_await _pool.run([&]() -> result<http::reply> {
    MAGNETAR_TRY(options, call_options("the owner"));
    return http::call(where, "PUT", path, {}, options);
  });
  if (!reply) co_return fail(errc::service_not_ready, reply.error().detail());
  if (reply.value().status != 204) {
    co_return fail(errc::service_not_ready, fmt::format("{} answered {} to PUT {}: {}", owner_url, reply.value().status,
                                                        path, reply.value().body));
  }
  co_return success();
}

awaitable<result<void>> cluster_control::split_bundle(std::string namespace_name, std::string bundle, bool unload) {
  MAGNETAR_CO_TRY(range, co_await bundle_of(namespace_name, bundle));
  MAGNETAR_CO_TRY(co_await _ownership.split(namespace_name, range));
  if (!unload) co_return success();
  MAGNETAR_CO_TRY(halves, split_in_half(range));
  MAGNETAR_CO_TRY(co_await _ownership.release(namespace_name, halves.first));
  co_return co_await _ownership.release(namespace_name, halves.second);
}

awaitable<result<cluster_leader>> cluster_control::leader() {
  auto node = co_await _store.get(std::string(leader_path));
  if (!node) co_return fail(errc::metadata_error, fmt::format("metadata store: {}", node.error().message()));
  if (!node.value()) co_return fail(errc::service_not_ready, "The cluster has no leader yet");
  const auto data = json::parse(node.value()->value, nullptr, false);
  if (!data.is_object()) co_return fail(errc::metadata_error, fmt::format("{}: not a JSON object", leader_path));
  co_return cluster_leader{data.value("brokerId", ""), data.value("serviceUrl", "")};
}

awaitable<result<admin_reply>> cluster_control::call_admin(std::string method, std::string target, std::string body) {
  MAGNETAR_CO_TRY(self, http::url::parse(admin_url_of(_ownership.self().http_url, _ownership.self().http_url_tls)));
  auto reply = co_await _pool.run([&]() -> result<http::reply> {
    MAGNETAR_TRY(options, call_options("the admin API"));
    options.max_redirects = 3;
    return http::call(self, method, target, body, options);
  });
  if (!reply) co_return fail(errc::service_not_ready, reply.error().detail());
  co_return admin_reply{reply.value().status, std::move(reply.value().body)};
}

awaitable<result<void>> cluster_control::health() {
  if (!_ownership.session()) co_return fail(errc::service_not_ready, "The broker has no metadata store session");
  auto registered = co_await _store.get(fmt::format("/loadbalance/brokers/{}", _ownership.self().id));
  if (!registered) {
    co_return fail(errc::service_not_ready, fmt::format("metadata store: {}", registered.error().message()));
  }
  if (!registered.value()) co_return fail(errc::service_not_ready, "The broker is not registered in the cluster");
  co_return success();
}

}  // namespace magnetar::broker::cluster
