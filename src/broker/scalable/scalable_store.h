// scalable_store: where scalable topics live in the metadata store (upstream's paths,
// so the layout reads the same to tools that look there):
//
//   /topics/<tenant>/<ns>/<topic>                          the layout (JSON); its
//                                                          existence is the topic's
//   /topics/<tenant>/<ns>/<topic>/controller               ephemeral: the leader broker
//   /topics/<tenant>/<ns>/<topic>/subscriptions/<sub>      {"type":"STREAM"|"QUEUE"}
//   .../subscriptions/<sub>/consumers/<consumer name>      a stream consumer's registration
//
// Layout updates are compare-and-set on the node's version, retried on a lost race with
// the change re-applied to what won. Thread-safe (the store is).
#pragma once

#include "base/result.h"
#include "broker/scalable/segment_layout.h"
#include "io/asio.h"
#include "meta/store.h"
#include "wire/topic_name.h"

#include <functional>
#include <optional>
#include <string>
#include <vector>

namespace magnetar::broker::scalable {

std::string topic_path(const wire::topic_name& topic);

class scalable_store {
 public:
  explicit scalable_store(meta::store& store) : _store(store) {}

  // errc::conflict "Scalable topic already exists: ..." when it does.
  awaitable<result<void>> create(const wire::topic_name& topic, const segment_layout& layout);
  // nullopt when the topic does not exist.
  awaitable<result<std::optional<segment_layout>>> read(const wire::topic_name& topic);
  // Applies `change` to the stored layout until the write wins; the change's own error
  // (or topic_not_found) stops it.
  awaitable<result<segment_layout::change>> update(
      const wire::topic_name& topic, std::function<result<segment_layout::change>(const segment_layout&)> change);
  awaitable<result<void>> remove(const wire::topic_name& topic);
  // topic://... names in the namespace.
  awaitable<result<std::vector<std::string>>> list(const std::string& namespace_name);

  awaitable<result<std::vector<std::string>>> subscriptions(const wire::topic_name& topic);
  // Idempotent.
  awaitable<result<void>> add_subscription(const wire::topic_name& topic, const std::string& subscription,
                                           const std::string& type);
  awaitable<result<void>> add_consumer(const wire::topic_name& topic, const std::string& subscription,
                                       const std::string& consumer);
  awaitable<result<void>> remove_consumer(const wire::topic_name& topic, const std::string& subscription,
                                          const std::string& consumer);

  // Claims leadership of the topic's controller for `broker` in `session`: true when this
  // broker holds it (now or already).
  awaitable<result<bool>> claim_controller(const wire::topic_name& topic, meta::session_id session,
                                           const std::string& broker);

 private:
  meta::store& _store;
};

}  // namespace magnetar::broker::scalable
