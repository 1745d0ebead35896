#include "broker/admin/admin_server.h"

#include "base/log.h"
#include "broker/api/errc.h"

#include <fmt/format.h>

namespace magnetar::broker::admin {

namespace {

http_server::options with_address(const broker_config& config, http_server::options limits, std::uint16_t port) {
  limits.address = config.bind_address;
  limits.port = port;
  return limits;
}

}  // namespace

admin_server::admin_server(const broker_config& config, meta::store& store, topic_admin* topics, io::shard& shard,
                           http_server::options limits)
    : admin_server(config, store, store, topics, shard, std::move(limits)) {}

admin_server::admin_server(const broker_config& config, meta::store& store, meta::store& configuration,
                           topic_admin* topics, io::shard& shard, http_server::options limits)
    : _config(config),
      _shard(shard),
      _limits(std::move(limits)),
      _resources(store, configuration, config.cluster_name),
      _api(_resources, topics) {
  _api.register_routes(_router);
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
                         .broker_url_tls = _broker_service_url_tls,
                         .advertised_address = _config.advertised_address,
                         .listeners = _config.advertised_listeners,
                         .allow_auto_topic_creation = _config.allow_auto_topic_creation,
                         .ownership = _ownership,
                         .cluster = _cluster});
  const auto handler = [this](incoming_request request) { return serve(std::move(request)); };
  if (_config.web_service_port) {
    _server = std::make_unique<http_server>(_shard, with_address(_config, _limits, *_config.web_service_port), handler);
    MAGNETAR_TRY(_server->start());
  }
  if (_config.web_service_port_tls) {
    auto options = with_address(_config, _limits, *_config.web_service_port_tls);
    auto source = tls::server_context_source::create(_config.tls, _config.tls_cert_refresh_check);
    if (!source) return fail(errc::invalid_request, fmt::format("webServicePortTls: {}", source.error().detail()));
    options.tls = std::move(source).value();
    options.handshake_timeout = _config.handshake_timeout;
    _tls_server = std::make_unique<http_server>(_shard, std::move(options), handler);
    MAGNETAR_TRY(_tls_server->start());
  }
  _api.set_web_ports(port(), tls_port());
  return success();
}

std::uint16_t admin_server::port() const { return _server ? _server->port() : 0; }
std::uint16_t admin_server::tls_port() const { return _tls_server ? _tls_server->port() : 0; }

awaitable<void> admin_server::stop() {
  if (_server) co_await _server->stop();
  if (_tls_server) co_await _tls_server->stop();
}

}  // namespace magnetar::broker::admin
