// bundle_ownership: this broker's share of a cluster (the topic_ownership of
// `magnetar broker`), kept in the metadata store as upstream keeps it:
//   /loadbalance/brokers/<host:webPort>   ephemeral, the broker's registration
//                                        (LocalBrokerData: its service URLs)
//   /namespace/<tenant>/<ns>/<bundle>     ephemeral, the owner of a bundle
//                                        (NamespaceEphemeralData: nativeUrl,
//                                        nativeUrlTls, httpUrl, httpUrlTls, disabled)
// Both live on one session of this broker's, so a broker that dies or loses its
// session leaves the cluster and its bundles in one go, and ZooKeeper's create is
// the only arbiter of who owns what: two brokers can't both create a bundle's node.
//
// Placement: a lookup of a bundle nobody owns is answered by the broker that
// rendezvous hashing picks among the least loaded registered ones (those whose
// reported message rate is within 10% of the lowest; every broker computes the same
// pick from the same reports, with no leader); the others redirect there with
// authoritative set. load_manager reports the load and sheds bundles.
//
// Splitting a bundle (its owner only): the halves' nodes are created first, then
// the namespace's boundaries change, then the whole's node goes. A broker that took
// the whole bundle from boundaries read before the change finds, once its node is
// created, that the range is no longer a bundle, and gives it up again.
//
// Losing ownership: when the session expires, or the connection to the store is
// down longer than the session timeout (then the store has already expired it, or
// will, and another broker may own the bundles), this broker stops owning every
// bundle at once and `lost` unloads their topics; it registers again once it can.
// Releasing (an unload, a graceful stop) first marks the bundle disabled, so that
// lookups wait, then lets `lost` close its topics, then deletes the node.
//
// Threading: lookup() and check_owned() from any thread; start(), stop() and the
// session handling on the executor given.
#pragma once

#include "broker/api/topic_ownership.h"
#include "broker/cluster/namespace_bundles.h"
#include "io/timer.h"
#include "meta/store.h"

#include <nlohmann/json.hpp>

#include <chrono>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <set>
#include <string>
#include <vector>

namespace magnetar::broker {
class namespace_resources;
}

namespace magnetar::broker::cluster {

// A broker's URLs: those of its ports that are on ("" for one that is off).
struct broker_identity {
  std::string id;                              // advertisedAddress:webServicePort, upstream's broker id
  std::string broker_url;                      // pulsar://advertisedAddress:brokerServicePort
  std::string http_url;                        // http://advertisedAddress:webServicePort
  std::vector<advertised_listener> listeners;  // advertisedListeners
  std::string broker_url_tls;                  // pulsar+ssl://advertisedAddress:brokerServicePortTls
  std::string http_url_tls;                    // https://advertisedAddress:webServicePortTls
};

struct registered_broker {
  std::string id;
  std::string broker_url;
  std::string http_url;
  std::vector<advertised_listener> listeners;
  nlohmann::json load;  // its registration node's data (see load_manager)
  std::string broker_url_tls;
  std::string http_url_tls;
};

// A load report's (or a bundle's lastStats entry's) message rate: msgRateIn + msgRateOut.
double message_rate(const nlohmann::json& load);

class bundle_ownership final : public topic_ownership {
 public:
  // `unload_unowned` closes every loaded topic this broker no longer owns (see owns()).
  bundle_ownership(meta::store& store, namespace_resources& resources, asio::any_io_executor executor,
                   std::chrono::milliseconds session_timeout, std::function<awaitable<void>()> unload_unowned);
  ~bundle_ownership() override;

  // Opens the session and registers the broker (once its ports are bound: until
  // then lookups answer service_not_ready).
  awaitable<result<void>> start(broker_identity self);
  // Releases every bundle (see release) and leaves the cluster.
  awaitable<void> stop();

  // topic_ownership
  awaitable<result<lookup_target>> lookup(wire::topic_name topic, bool authoritative) override;
  awaitable<result<void>> check_owned(wire::topic_name topic) override;

  bool owns(const wire::topic_name& topic) const;
  // The owned bundle the topic is in, as "tenant/ns/0x..._0x..."; nullopt when none is.
  std::optional<std::string> owned_bundle_of(const wire::topic_name& topic) const;
  // The bundles this broker owns, as "tenant/ns/0x..._0x...".
  std::vector<std::string> owned_bundles() const;
  // Hands the namespace's bundles this broker owns (all of them, or `only` that one)
  // back to the cluster: disabled, topics unloaded, node deleted. The next lookup
  // places each again.
  awaitable<result<void>> release(std::string namespace_name, std::optional<bundle_range> only = std::nullopt);

  // Splits a bundle this broker owns into its halves, which it then owns;
  // errc::service_not_ready when it doesn't own it.
  awaitable<result<void>> split(std::string namespace_name, bundle_range range);

  // The namespace's bundles, from its local policies (where splits write them) or else
  // its policies.
  awaitable<result<std::vector<bundle_range>>> bundles_of(std::string namespace_name);
  // The owner of a bundle; an empty target when nobody owns it.
  awaitable<result<lookup_target>> owner_of(std::string namespace_name, bundle_range range);

  // The brokers registered now, sorted by id.
  awaitable<result<std::vector<registered_broker>>> registered_brokers();
  // Writes this broker's registration data with `load` merged in (load_manager's
  // report); nothing while the broker is between sessions.
  awaitable<result<void>> report_load(nlohmann::json load);
  // The session this broker's ephemeral nodes live on; nullopt between sessions.
  std::optional<meta::session_id> session() const;
  const broker_identity& self() const { return _self; }

 private:
  struct owned_bundle {
    std::string namespace_name;
    bundle_range range;
    std::int64_t version;  // of its ownership node
  };
  awaitable<result<void>> join();
  awaitable<result<lookup_target>> owner_at(const std::string& path, const std::string& bundle_key);
  std::string registration_path() const;
  nlohmann::json registration_data() const;
  awaitable<result<lookup_target>> acquire(const std::string& path, const std::string& namespace_name,
                                           bundle_range range);
  std::string owner_data(bool disabled) const;
  void on_session_event(meta::session_event e);
  // Stops owning everything at once and unloads the topics.
  void drop_everything(const char* why);

  meta::store& _store;
  namespace_resources& _resources;
  broker_identity _self;
  asio::any_io_executor _executor;
  const std::chrono::milliseconds _session_timeout;
  std::function<awaitable<void>()> _unload_unowned;

  mutable std::mutex _mutex;
  std::map<std::string, owned_bundle> _owned;  // by "tenant/ns/range"
  std::optional<meta::session_id> _session;
  nlohmann::json _load = nlohmann::json::object();  // the last report
  std::int64_t _registration_version = -1;
  bool _stopping = false;
  std::uint64_t _disconnections = 0;  // counts connection losses, to tell a timer its own
  meta::listener_handle _session_listener;
  // What this broker's spawned work checks before touching it: gone with it.
  std::shared_ptr<int> _alive = std::make_shared<int>(0);
};

}  // namespace magnetar::broker::cluster
