#include "broker/admin/admin_server.h"

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
  _server =
      std::make_unique<http_server>(shard, with_address(config, std::move(limits)),
                                    [this](incoming_request request) { return _router.dispatch(std::move(request)); });
}

admin_server::~admin_server() = default;

result<void> admin_server::start() {
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
