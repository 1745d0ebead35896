#include "broker/replication/replication_clients.h"

#include "broker/api/errc.h"

#include <fmt/format.h>

namespace magnetar::broker {

replication_clients::replication_clients(namespace_resources& resources, std::string auth_plugin,
                                         std::string auth_params, std::optional<tls::client_settings> tls)
    : _resources(resources),
      _auth_plugin(std::move(auth_plugin)),
      _auth_params(std::move(auth_params)),
      _tls(std::move(tls)) {}

replication_clients::~replication_clients() { close(); }

awaitable<result<std::shared_ptr<client>>> replication_clients::client_for(std::string cluster) {
  {
    std::lock_guard lock(_mutex);
    if (_closed) co_return fail(errc::service_not_ready, "the broker is stopping");
    if (auto it = _clients.find(cluster); it != _clients.end()) co_return it->second;
  }
  MAGNETAR_CO_TRY(data, co_await _resources.get_cluster(cluster));
  if (!data)
    co_return fail(errc::invalid_request, fmt::format("cluster {} is not in the configuration store", cluster));
  const char* const key = _tls ? "brokerServiceUrlTls" : "brokerServiceUrl";
  const auto url = data->value(key, "");
  if (url.empty()) {
    co_return fail(errc::invalid_request, fmt::format("cluster {} has no {} to replicate to", cluster, key));
  }
  client_config config;
  config.io_threads = 1;
  // A link between regions that breaks silently (a partition drops packets, nothing
  // resets) is noticed within two keep-alive intervals, and a healed one reached again
  // within the backoff's cap. With a client's defaults (30 s each) the replicator waited
  // for TCP's retransmission backoff instead: 24 s after a 30 s partition healed.
  config.keep_alive_interval = std::chrono::seconds(5);
  config.max_backoff = std::chrono::seconds(5);
  config.auth_plugin = _auth_plugin;
  config.auth_params = _auth_params;
  if (_tls) {
    config.tls_trust_certs_file_path = _tls->trust_certs_file;
    config.tls_allow_insecure_connection = _tls->allow_insecure_connection;
    config.tls_validate_hostname = _tls->hostname_verification;
    config.tls_certificate_file_path = _tls->certificate_file;
    config.tls_private_key_file_path = _tls->key_file;
  }
  MAGNETAR_CO_TRY(made, client::create(url, config));
  std::lock_guard lock(_mutex);
  if (_closed) co_return fail(errc::service_not_ready, "the broker is stopping");
  // Another replicator may have made one meanwhile; the first stays.
  auto [it, added] = _clients.emplace(cluster, std::make_shared<client>(std::move(made)));
  co_return it->second;
}

void replication_clients::close() {
  std::map<std::string, std::shared_ptr<client>> clients;
  {
    std::lock_guard lock(_mutex);
    _closed = true;
    clients.swap(_clients);
  }
  for (auto& [name, c] : clients) (void)c->close();
}

}  // namespace magnetar::broker
