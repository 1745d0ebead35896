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
}

int initialize_command::run() const {
  const auto& url = _configuration_store.value_or(_metadata_store);
  auto store = meta::make_store(url, {});
  if (!store) {
    fmt::print(stderr, "magnetar initialize-cluster-metadata: {}\n", store.error());
    return EXIT_FAILURE;
  }
  io::running_shards shards(1);
  auto done = io::block_on(shards[0], [&]() -> awaitable<result<void>> {
    MAGNETAR_CO_TRY(co_await store.value()->start());
    auto written = co_await broker::initialize_cluster_metadata(
        *store.value(),
        {.cluster = _cluster, .web_service_url = _web_service_url, .broker_service_url = _broker_service_url});
    co_await store.value()->stop();
    co_return written;
  }());
  if (!done) {
    fmt::print(stderr, "magnetar initialize-cluster-metadata: {}\n", done.error());
    return EXIT_FAILURE;
  }
  fmt::print("cluster {} initialized in {}\n", _cluster, url);
  return EXIT_SUCCESS;
}

}  // namespace magnetar::app
