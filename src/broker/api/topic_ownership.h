// topic_ownership: which broker of a cluster serves a topic. In a cluster each
// namespace bundle (a hash range of topic names) is owned by one broker at a time,
// and only its owner serves the bundle's topics (broker/cluster/bundle_ownership.h).
// A standalone has none: it serves every topic.
// Thread-safety: every call from any shard, concurrently.
#pragma once

#include "base/result.h"
#include "broker/api/advertised_listeners.h"
#include "io/asio.h"
#include "wire/topic_name.h"

#include <string>
#include <vector>

namespace magnetar::broker {

// Where a LOOKUP sends the client: to connect to `broker_url` (the owner), or, with
// `redirect`, to ask `broker_url` again with the authoritative flag given (a broker
// that will decide, as upstream's Redirect).
struct lookup_target {
  std::string broker_url;  // pulsar://host:port ("" for a broker with the plaintext port off)
  std::string http_url;    // http://host:port
  bool redirect = false;
  bool authoritative = true;
  // That broker's advertisedListeners (their pulsar:// and pulsar+ssl:// URLs), for a
  // lookup that names one (lookup_urls_for).
  std::vector<advertised_listener> listeners;
  std::string broker_url_tls;  // pulsar+ssl://host:port, or ""
  std::string http_url_tls;    // https://host:port, or ""

  // No broker: nobody owns the bundle.
  bool empty() const { return broker_url.empty() && broker_url_tls.empty(); }
  // The defaults for lookup_urls_for.
  lookup_urls urls() const {
    return {
        .broker_url = broker_url, .broker_url_tls = broker_url_tls, .http_url = http_url, .http_url_tls = http_url_tls};
  }
};

class topic_ownership {
 public:
  virtual ~topic_ownership() = default;
  // The owner of the topic's bundle, this broker included; a bundle nobody owns is
  // taken by this broker when it is the one to place it (or `authoritative`: another
  // broker chose it), else the answer redirects to the broker that is.
  // errc::service_not_ready while the bundle is being unloaded or no broker is up.
  virtual awaitable<result<lookup_target>> lookup(wire::topic_name topic, bool authoritative) = 0;
  // Success while this broker owns the topic's bundle; errc::service_not_ready
  // ("... not served by this instance. Please redo the lookup.") otherwise.
  virtual awaitable<result<void>> check_owned(wire::topic_name topic) = 0;
};

}  // namespace magnetar::broker
