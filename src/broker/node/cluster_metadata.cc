#include "broker/node/cluster_metadata.h"

#include "broker/api/errc.h"
#include "broker/namespace/namespace_resources.h"
#include "meta/errc.h"

#include <fmt/format.h>

namespace magnetar::broker {

awaitable<result<void>> initialize_cluster_metadata(meta::store& store, cluster_metadata metadata) {
  return initialize_cluster_metadata(store, store, std::move(metadata));
}

awaitable<result<void>> initialize_cluster_metadata(meta::store& store, meta::store& configuration,
                                                    cluster_metadata metadata) {
  namespace_resources resources(store, configuration, metadata.cluster);
  MAGNETAR_CO_TRY(existing, co_await resources.get_cluster(metadata.cluster));
  if (existing) {
    const auto service_url = existing->value("serviceUrl", "");
    const auto broker_service_url = existing->value("brokerServiceUrl", "");
    if (service_url != metadata.web_service_url || broker_service_url != metadata.broker_service_url) {
      co_return fail(errc::conflict,
                     fmt::format("cluster '{}' is initialized already with --web-service-url {} and "
                                 "--broker-service-url {}; not changed (magnetar admin clusters update changes it)",
                                 metadata.cluster, service_url, broker_service_url));
    }
  }
  MAGNETAR_CO_TRY(co_await resources.ensure_defaults(metadata.web_service_url, metadata.broker_service_url,
                                                     metadata.web_service_url_tls, metadata.broker_service_url_tls));
  for (const auto* path : {"/ledgers/available", "/ledgers/available/readonly"}) {
    auto made = co_await store.put(path, "", -1);
    if (!made && made.error() != meta::errc::bad_version) {
      co_return fail(errc::metadata_error, fmt::format("metadata store: {}", made.error().message()));
    }
  }
  co_return success();
}

}  // namespace magnetar::broker
