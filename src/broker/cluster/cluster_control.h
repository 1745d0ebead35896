// cluster_control: the cluster_admin of `magnetar broker`: the admin API's bundle
// operations over bundle_ownership, with an unload of a bundle another broker owns
// sent to that broker's admin API (PUT .../{bundle}/unload), as upstream's broker does
// through its own admin client.
// Threading: any shard; the HTTP call runs on the blocking pool.
#pragma once

#include "broker/api/cluster_admin.h"
#include "broker/cluster/bundle_ownership.h"
#include "io/blocking_pool.h"
#include "meta/store.h"

namespace magnetar::broker::cluster {

class cluster_control final : public cluster_admin {
 public:
  // `authorization`: the Authorization header of its calls to brokers' admin APIs (this
  // broker's own credentials, "Bearer <token>"; empty for none).
  cluster_control(meta::store& store, bundle_ownership& ownership, io::blocking_pool& pool,
                  std::string authorization = {});

  const std::string& self_http_url() const override { return _ownership.self().http_url; }
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

  meta::store& _store;
  bundle_ownership& _ownership;
  io::blocking_pool& _pool;
  const std::string _authorization;
};

}  // namespace magnetar::broker::cluster
