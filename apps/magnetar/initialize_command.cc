#include "initialize_command.h"

#include "broker/node/cluster_metadata.h"
#include "io/block_on.h"
#include "io/running_shards.h"
#include "meta/store_url.h"

#include <fmt/format.h>

#include <cstdio>
#include <cstdlib>

namespace magnetar::app {

initialize_command::initialize_command(CLI::App& app) {
  _command = app.add_subcommand("initialize-cluster-metadata",
                                "Write a new cluster's metadata (the cluster, tenant public, namespace public/default, "
                                "the bookies' nodes) before its first broker starts; safe to run again");
  _command->add_option("--cluster,-c", _cluster, "The cluster's name (the brokers' clusterName)")->required();
  _command->add_option("--metadata-store", _metadata_store, "zk:host:port[,...][/chroot] (metadataStoreUrl)")
      ->required();
  _command->add_option("--configuration-metadata-store", _configuration_store,
                       "Where tenants, namespaces and clusters live (configurationMetadataStoreUrl); the metadata "
                       "store when left out");
  _command->add_option("--web-service-url", _web_service_url, "http://host:port of the cluster's brokers")->required();
  _command->add_option("--broker-service-url", _broker_service_url, "pulsar://host:port of the cluster's brokers")
      ->required();
  _command->add_option("--web-service-url-tls", _web_service_url_tls, "https://host:port of the cluster's brokers");
  _command->add_option("--broker-service-url-tls", _broker_service_url_tls,
                       "pulsar+ssl://host:port of the cluster's brokers");
}

int initialize_command::run() const {
  const std::string configuration_url = _configuration_store.value_or(_metadata_store);
  auto store = meta::make_store(_metadata_store, {});
  if (!store) {
    fmt::print(stderr, "magnetar initialize-cluster-metadata: {}\n", store.error());
    return EXIT_FAILURE;
  }
  // A configuration store of its own only when it is another one.
  std::unique_ptr<meta::store> shared;
  if (configuration_url != _metadata_store) {
    auto made = meta::make_store(configuration_url, {});
    if (!made) {
      fmt::print(stderr, "magnetar initialize-cluster-metadata: {}\n", made.error());
      return EXIT_FAILURE;
    }
    shared = std::move(made).value();
  }
  meta::store& configuration = shared ? *shared : *store.value();
  io::running_shards shards(1);
  auto done = io::block_on(shards[0], [&]() -> awaitable<result<void>> {
    MAGNETAR_CO_TRY(co_await store.value()->start());
    if (shared) {
      MAGNETAR_CO_TRY(co_await shared->start());
    }
    // A named argument: GCC 12 destroys a braced temporary in a co_await expression twice.
    broker::cluster_metadata metadata{.cluster = _cluster,
                                      .web_service_url = _web_service_url,
                                      .broker_service_url = _broker_service_url,
                                      .web_service_url_tls = _web_service_url_tls,
                                      .broker_service_url_tls = _broker_service_url_tls};
    auto written = co_await broker::initialize_cluster_metadata(*store.value(), configuration, std::move(metadata));
    if (shared) co_await shared->stop();
    co_await store.value()->stop();
    co_return written;
  }());
  if (!done) {
    fmt::print(stderr, "magnetar initialize-cluster-metadata: {}\n", done.error());
    return EXIT_FAILURE;
  }
  fmt::print("cluster {} initialized in {} (configuration store {})\n", _cluster, _metadata_store, configuration_url);
  return EXIT_SUCCESS;
}

}  // namespace magnetar::app
