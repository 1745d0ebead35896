// admin_server: the broker's web service (webServicePort): Pulsar's admin REST API under
// /admin/v2 and Prometheus metrics at /metrics, over HTTP/1.1.
//
// Wires the broker's config, the metadata store, namespace_resources, the broker's
// topic_admin and an http_server. The standalone (or a broker) constructs it after the
// metadata store has started, and stops it before the broker's topics and the store:
//
//   admin::admin_server admin(config, store, &broker.topics(), shards[0]);
//   MAGNETAR_TRY(io::block_on(shards[0], admin.resources().ensure_defaults(
//       "http://localhost:8080", "pulsar://localhost:6650")));   // standalone, every start
//   admin.serve_lookups(broker.service_url(), broker.service_url_tls());
//   MAGNETAR_TRY(admin.start());                                  // binds bind_address:web_service_port
//   ... admin.port() ...
//   io::block_on(shards[0], admin.stop());
//
// With authenticationEnabled every request but /metrics (upstream's
// authenticateMetricsEndpoint=false) must carry credentials the authenticator takes
// (Authorization: Bearer <token>), or get anonymousUserRole; others get 401. With
// authorizationEnabled the role must also be allowed the route's access (admin_access.h).
//
// `topics` may be null while there is no broker (topic routes answer 503 then). Stop the
// server before destroying it (its connections use the routes it owns) and before the
// store, the topics or the shards go away.
// Owning shard: the HTTP server's connections run on `shard`. Thread-safety: start() and
// stop() from one thread other than the shard's; resources() is thread-safe.
#pragma once

#include "base/result.h"
#include "broker/admin/admin_access.h"
#include "broker/admin/admin_api.h"
#include "broker/admin/http_types.h"
#include "broker/admin/router.h"
#include "broker/api/broker_config.h"
#include "broker/api/topic_admin.h"
#include "broker/namespace/namespace_resources.h"
#include "io/shard.h"
#include "meta/store.h"

#include <cstdint>
#include <memory>

namespace magnetar::broker::admin {

class admin_server {
 public:
  // Listens on config.bind_address:config.web_service_port (0: an ephemeral port), and
  // over HTTPS on web_service_port_tls; either may be off. The config, store, topics and
  // shard must outlive the server. `limits` tunes the HTTP servers (their addresses and
  // ports are taken from the config).
  admin_server(const broker_config& config, meta::store& store, topic_admin* topics, io::shard& shard,
               http_server::options limits = {});
  // A cluster with a configuration store of its own (configurationMetadataStoreUrl).
  admin_server(const broker_config& config, meta::store& store, meta::store& configuration, topic_admin* topics,
               io::shard& shard, http_server::options limits = {});
  ~admin_server();
  admin_server(const admin_server&) = delete;
  admin_server& operator=(const admin_server&) = delete;

  // Lookups over HTTP (/lookup/v2) answer this broker's URLs: `broker_service_url`,
  // `broker_service_url_tls` and the servers' own http[s]:// URLs, or an advertised
  // listener's. Call before start(); without it lookups answer 503.
  // In a cluster, `ownership` and `cluster` answer for the topics and bundles.
  void serve_lookups(std::string broker_service_url, std::string broker_service_url_tls,
                     topic_ownership* ownership = nullptr, cluster_admin* cluster = nullptr) {
    _broker_service_url = std::move(broker_service_url);
    _broker_service_url_tls = std::move(broker_service_url_tls);
    _ownership = ownership;
    _cluster = cluster;
  }
  // Binds and starts serving (webServicePort, and webServicePortTls over TLS); fails
  // when a port is taken or the TLS files don't make a context.
  result<void> start();
  // The ports listened on, once started; 0 for one that is off.
  std::uint16_t port() const;
  std::uint16_t tls_port() const;
  // Stops accepting and waits for requests in flight. Idempotent.
  awaitable<void> stop();

  namespace_resources& resources() { return _resources; }

 private:
  // Authenticates the request (with authenticationEnabled), then routes it.
  awaitable<http_response> serve(incoming_request request);

  const broker_config& _config;
  io::shard& _shard;
  const http_server::options _limits;
  std::string _broker_service_url;
  std::string _broker_service_url_tls;
  topic_ownership* _ownership = nullptr;
  cluster_admin* _cluster = nullptr;
  namespace_resources _resources;
  admin_api _api;
  router _router;
  std::unique_ptr<auth::authenticator> _authenticator;  // made by start() with authenticationEnabled
  std::unique_ptr<access_control> _access_control;      // made by start() with authorizationEnabled
  std::unique_ptr<admin_access> _access;
  std::unique_ptr<http_server> _server;      // webServicePort
  std::unique_ptr<http_server> _tls_server;  // webServicePortTls
};

}  // namespace magnetar::broker::admin
