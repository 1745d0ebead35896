// admin_api: the brokers of a cluster, as upstream lists them: the ids
// (advertisedAddress:webServicePort) registered under /loadbalance/brokers.
#include "broker/admin/admin_api.h"
#include "broker/admin/admin_errors.h"

#include <fmt/format.h>

namespace magnetar::broker::admin {

awaitable<http_response> admin_api::list_brokers(incoming_request request) {
  const auto& cluster = request.param("cluster");
  auto known = co_await _resources.get_cluster(cluster);
  if (!known) co_return error_to_response(known.error());
  if (!known.value()) co_return error_response(404, fmt::format("Cluster {} does not exist", cluster));
  auto ids = co_await _resources.store().children("/loadbalance/brokers");
  if (!ids) co_return error_response(500, fmt::format("metadata store: {}", ids.error().message()));
  co_return json_response(200, nlohmann::json(ids.value()).dump());
}

}  // namespace magnetar::broker::admin
