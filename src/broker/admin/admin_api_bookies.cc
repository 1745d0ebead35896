// The bookie routes: what the metadata store says of the cluster's bookies.
//
//   GET /admin/v2/bookies/all               upstream's BookiesClusterInfo:
//                                           {"bookies": [{"bookieId": "host:port"}, ...]},
//                                           writable and read-only
//   GET /admin/v2/bookies/underreplicated   magnetar's: the auto-recovery list, as
//                                           BookKeeper's `listunderreplicated` shows it:
//                                           [{"ledgerId", "missingReplicas", "ctime"}, ...]
#include "autorecovery/underreplication.h"
#include "broker/admin/admin_api.h"
#include "broker/admin/admin_errors.h"

#include <nlohmann/json.hpp>

namespace magnetar::broker::admin {

awaitable<http_response> admin_api::list_bookies(incoming_request) {
  auto bookies = co_await autorecovery::registered_bookies(_resources.store());
  if (!bookies) co_return error_to_response(bookies.error());
  auto list = nlohmann::json::array();
  for (const auto& id : bookies.value()) list.push_back({{"bookieId", id}});
  co_return json_response(200, nlohmann::json{{"bookies", list}}.dump());
}

awaitable<http_response> admin_api::list_underreplicated(incoming_request) {
  auto listed = co_await autorecovery::list_underreplicated(_resources.store());
  if (!listed) co_return error_to_response(listed.error());
  auto out = nlohmann::json::array();
  for (const auto& l : listed.value()) {
    out.push_back({{"ledgerId", l.id.value()}, {"missingReplicas", l.missing}, {"ctime", l.marked_ms}});
  }
  co_return json_response(200, out.dump());
}

}  // namespace magnetar::broker::admin
