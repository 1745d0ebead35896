// broker_node: one broker of a cluster (`magnetar broker`, like `pulsar broker`): the
// broker service and the admin REST API over the cluster's metadata store
// (metadataStoreUrl, ZooKeeper) and its bookies (bookkeeperMetadataServiceUri, by
// default the ledgers under the metadata store), serving only the namespace bundles
// it owns (broker/cluster/bundle_ownership.h). Stateless: any broker can take any
// bundle, so one that dies hands its bundles over with its session.
//
// The cluster must be initialized first (`magnetar initialize-cluster-metadata`):
// start() refuses a clusterName the store doesn't know. stop() hands the bundles back
// (their topics closed, so clients move at once), then stops like the standalone.
// start() and stop() on a thread that is none of the node's shards.
#pragma once

#include "base/result.h"
#include "broker/api/broker_config.h"

#include <cstdint>
#include <memory>
#include <string>

namespace magnetar::broker {

class broker_node {
 public:
  explicit broker_node(broker_config config);
  ~broker_node();
  broker_node(const broker_node&) = delete;
  broker_node& operator=(const broker_node&) = delete;

  result<void> start();
  // Idempotent.
  void stop();

  std::uint16_t broker_port() const;
  std::uint16_t web_port() const;
  std::string service_url() const;          // pulsar://advertisedAddress:port
  std::string service_url_tls() const;      // pulsar+ssl://advertisedAddress:port, or ""
  std::string web_service_url() const;      // http://advertisedAddress:port ("" with it off)
  std::uint16_t broker_tls_port() const;    // 0 without brokerServicePortTls
  std::uint16_t web_tls_port() const;       // 0 without webServicePortTls
  std::string web_service_url_tls() const;  // https://advertisedAddress:port, or ""

 private:
  struct parts;
  broker_config _config;
  std::unique_ptr<parts> _parts;
  bool _started = false;
};

// bookkeeperMetadataServiceUri when the config leaves it empty: the ledgers under the
// metadata store (zk:host:port/chroot -> zk://host:port/chroot/ledgers), as upstream.
result<std::string> bookies_of(const broker_config& config);

}  // namespace magnetar::broker
