// replication_clients: one client library instance per remote cluster, shared by the
// replicators of every topic this broker serves (upstream's broker keeps one
// PulsarClient per cluster for its replicators too). A cluster's URL comes from its
// ClusterData in the configuration store (brokerServiceUrl, `magnetar admin clusters
// create`), read when the first replicator needs the cluster.
//
// Thread-safe: replicators on every shard ask for clients. close() at broker stop,
// after the topics closed (it ends every producer the replicators still hold).
#pragma once

#include "base/result.h"
#include "broker/namespace/namespace_resources.h"
#include "io/asio.h"
#include "magnetar/client.h"
#include "tls/settings.h"

#include <chrono>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>

namespace magnetar::broker {

class replication_clients {
 public:
  // `auth_plugin`/`auth_params`: what the clients present to remote clusters
  // (brokerClientAuthenticationPlugin/Parameters). With `tls` (brokerClientTlsEnabled)
  // they dial the cluster's brokerServiceUrlTls, trusting as it says.
  replication_clients(namespace_resources& resources, std::string auth_plugin = {}, std::string auth_params = {},
                      std::optional<tls::client_settings> tls = std::nullopt);
  ~replication_clients();
  replication_clients(const replication_clients&) = delete;
  replication_clients& operator=(const replication_clients&) = delete;

  // The client for `cluster`. Errors: errc::invalid_request when the cluster is unknown
  // or names no pulsar:// URL, the store's errors, the client's (a bad URL).
  awaitable<result<std::shared_ptr<client>>> client_for(std::string cluster);
  void close();

 private:
  namespace_resources& _resources;
  const std::string _auth_plugin;
  const std::string _auth_params;
  const std::optional<tls::client_settings> _tls;
  std::mutex _mutex;
  std::map<std::string, std::shared_ptr<client>> _clients;
  bool _closed = false;
};

}  // namespace magnetar::broker
