// cluster_control: the cluster_admin of `magnetar broker`: the admin API's bundle
// operations over bundle_ownership, with an unload of a bundle another broker owns
// sent to that broker's admin API (PUT .../{bundle}/unload), as upstream's broker does
// through its own admin client.
// Threading: any shard; the HTTP call runs on the blocking pool.
#pragma once

#include "auth/client_credentials.h"
#include "broker/api/cluster_admin.h"
#include "broker/cluster/bundle_ownership.h"
#include "http/client.h"
#include "io/blocking_pool.h"
#include "meta/store.h"
#include "tls/settings.h"

#include <optional>

namespace magnetar::broker::cluster {

class cluster_control final : public cluster_admin {
 public:
  // `credentials`: what its calls to brokers' admin APIs present (this broker's own,
  // brokerClientAuthenticationPlugin/Parameters), read at every call so that a rotated
  // token file is picked up. With `tls` those calls go to the brokers' https:// URLs
  // (brokerClientTlsEnabled), trusting as it says.
  cluster_control(meta::store& store, bundle_ownership& ownership, io::blocking_pool& pool,
                  auth::client_credentials credentials = {}, std::optional<tls::client_settings> tls = std::nullopt);

  bool is_self(const lookup_target& target) const override;
  awaitable<result<nlohmann::json>> bundles(std::string namespace_name) override;
  awaitable<result<lookup_target>> bundle_owner(std::string namespace_name, std::string bundle) override;
  awaitable<result<void>> unload_bundle(std::string namespace_name, std::string bundle) override;
  awaitable<result<void>> split_bundle(std::string namespace_name, std::string bundle, bool unload) override;
  awaitable<result<cluster_leader>> leader() override;
  awaitable<result<void>> health() override;
  awaitable<result<admin_reply>> call_admin(std::string method, std::string target, std::string body) override;

 private:
  // The named bundle, checked to be one of the namespace's.
  awaitable<result<bundle_range>> bundle_of(const std::string& namespace_name, const std::string& bundle);

  // The admin URL to call a broker at: https with brokerClientTlsEnabled (when it has
  // one), else http; whichever it has when it has one only.
  std::string admin_url_of(const std::string& http_url, const std::string& http_url_tls) const;
  // With the credentials' Authorization header (reads a token file: on the blocking pool).
  result<http::call_options> call_options(std::string server_name) const;

  meta::store& _store;
  bundle_ownership& _ownership;
  io::blocking_pool& _pool;
  const auth::client_credentials _credentials;
  const std::optional<tls::client_settings> _tls;
};

}  // namespace magnetar::broker::cluster
