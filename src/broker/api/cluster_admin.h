// cluster_admin: what the admin REST API asks of a cluster of brokers beyond one
// topic's owner (topic_ownership): a namespace's bundles, moving and splitting them,
// the leader and the broker's health. `magnetar broker` implements it
// (broker/cluster/); a standalone has none and answers these paths on its own.
// Bundles are named as upstream: "0x00000000_0x40000000".
// Thread-safety: every call from any shard, concurrently.
#pragma once

#include "base/result.h"
#include "broker/api/topic_ownership.h"
#include "io/asio.h"

#include <nlohmann/json.hpp>

#include <string>

namespace magnetar::broker {

struct admin_reply {
  int status = 0;
  std::string body;
};

struct cluster_leader {
  std::string broker_id;  // host:webPort
  std::string http_url;
};

class cluster_admin {
 public:
  virtual ~cluster_admin() = default;
  // Whether the target is this broker.
  virtual bool is_self(const lookup_target& target) const = 0;
  // Upstream's BundlesData: {"boundaries": [...], "numBundles": N}.
  virtual awaitable<result<nlohmann::json>> bundles(std::string namespace_name) = 0;
  // The bundle's owner; an empty broker_url when nobody owns it.
  // errc::invalid_request for a name that isn't one of the namespace's bundles.
  virtual awaitable<result<lookup_target>> bundle_owner(std::string namespace_name, std::string bundle) = 0;
  // Unloads the bundle wherever it is owned (asking its owner over HTTP when that is
  // another broker); nothing when nobody owns it. The next lookup places it again.
  virtual awaitable<result<void>> unload_bundle(std::string namespace_name, std::string bundle) = 0;
  // Splits a bundle this broker owns into its two halves, which it keeps owning (or
  // releases, with `unload`). errc::service_not_ready when it isn't owned here.
  virtual awaitable<result<void>> split_bundle(std::string namespace_name, std::string bundle, bool unload) = 0;
  // The broker that runs the cluster's load shedding.
  virtual awaitable<result<cluster_leader>> leader() = 0;
  // Success while this broker holds its metadata session and the store answers.
  virtual awaitable<result<void>> health() = 0;
  // Sends an admin call (`target`: path and query) to this broker's own admin API,
  // following its 307s, so that the owner of the topic in the path serves it: how a
  // partitioned topic's call reaches each partition's owner.
  virtual awaitable<result<admin_reply>> call_admin(std::string method, std::string target, std::string body) = 0;
};

}  // namespace magnetar::broker
