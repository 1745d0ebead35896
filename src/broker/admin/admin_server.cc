#include "broker/admin/admin_server.h"

#include "base/log.h"
#include "broker/api/errc.h"

#include <fmt/format.h>

namespace magnetar::broker::admin {

namespace {

http_server::options with_address(const broker_config& config, http_server::options limits) {
  limits.address = config.bind_address;
  limits.port = config.web_service_port;
  return limits;
}

}  // namespace

admin_server::admin_server(const broker_config& config, meta::store& store, topic_admin* topics, io::shard& shard,
                           http_server::options limits)
    : admin_server(config, store, store, topics, shard, std::move(limits)) {}

admin_server::admin_server(const broker_config& config, meta::store& store, meta::store& configuration,
                           topic_admin* topics, io::shard& shard, http_server::options limits)
    : _config(config), _resources(store, configuration, config.cluster_name), _api(_resources, topics) {
  _api.register_routes(_router);
  _server = std::make_unique<http_server>(shard, with_address(config, std::move(limits)),
                                          [this](incoming_request request) { return serve(std::move(request)); });
}

admin_server::~admin_server() = default;

awaitable<http_response> admin_server::serve(incoming_request request) {
  if (_authenticator && !request.target.starts_with("/metrics")) {
    auto who = _authenticator->authenticate_http(request.authorization);
    if (!who) {
      spdlog::info("admin: {} {}: authentication failed: {}", request.method, request.target, who.error());
      co_return error_response(401, "Authentication required");
    }
    request.principal = std::move(who).value().role;
  }
  co_return co_await _router.dispatch(std::move(request));
}

result<void> admin_server::start() {
  if (_config.authentication_enabled) {
    auto made = auth::authenticator::create(_config.authentication);
    if (!made) return fail(errc::invalid_request, fmt::format("authentication: {}", made.error().message()));
    _authenticator = std::move(made).value();
  }
  if (_config.authorization_enabled) {
    _access_control = std::make_unique<access_control>(
        auth::authorization_settings{.super_user_roles = _config.super_user_roles,
                                     .allow_wildcards = _config.authorization_allow_wildcards},
        _resources);
    _access = std::make_unique<admin_access>(*_access_control);
    _router.set_guard([this](const incoming_request& request, access who) { return _access->check(request, who); });
  }
  _api.set_service_urls({.broker_url = _broker_service_url,
                         .advertised_address = _config.advertised_address,
                         .listeners = _config.advertised_listeners,
                         .allow_auto_topic_creation = _config.allow_auto_topic_creation,
                         .ownership = _ownership,
                         .cluster = _cluster});
  MAGNETAR_TRY(_server->start());
  _api.set_web_port(port());
  return success();
}

awaitable<void> admin_server::stop() { co_await _server->stop(); }

}  // namespace magnetar::broker::admin
