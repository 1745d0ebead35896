// registration: a bookie's ephemeral node in the metadata store, where ledger
// clients find it (upstream's layout): /ledgers/available/<id> while it takes
// writes, /ledgers/available/readonly/<id> while it is read-only, each with
// {"bookieId", "readOnly"}. The node lives on a session of its own, so that
// publishing again (read-only or back, or after the session was lost) ends
// the old session and with it the old node.
// Threading: one coroutine at a time (the bookie node's shard 0).
#pragma once

#include "base/result.h"
#include "io/asio.h"
#include "meta/store.h"

#include <optional>
#include <string>

namespace magnetar::bookie_node {

class registration {
 public:
  registration(meta::store& store, std::string bookie_id) : _store(store), _id(std::move(bookie_id)) {}

  awaitable<result<void>> publish(bool read_only);

 private:
  meta::store& _store;
  std::string _id;
  std::optional<meta::session_id> _session;
};

}  // namespace magnetar::bookie_node
