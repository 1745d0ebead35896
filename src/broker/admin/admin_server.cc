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
    : _resources(store, config.cluster_name), _api(_resources, topics) {
  _api.register_routes(_router);
  _server =
      std::make_unique<http_server>(shard, with_address(config, std::move(limits)),
                                    [this](incoming_request request) { return _router.dispatch(std::move(request)); });
}

admin_server::~admin_server() = default;

result<void> admin_server::start() { return _server->start(); }

awaitable<void> admin_server::stop() { co_await _server->stop(); }

}  // namespace magnetar::broker::admin
