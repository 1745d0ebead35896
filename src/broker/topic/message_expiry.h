// message_expiry: message TTL (upstream's PersistentMessageExpiryMonitor, per topic):
// every subscription acknowledges, on its own behalf, each message published more than
// the TTL ago. The periodic check (messageExpiryCheckIntervalInMinutes) calls it.
//
// The cut is found by a binary search over the entries' publish times
// (topic::find_by_publish_time), so it assumes publish times rise along the topic, as
// upstream's search does; messages of a batch expire together (an entry is the unit).
// On the topic's shard; not thread-safe.
#pragma once

#include "base/result.h"
#include "io/asio.h"

#include <cstdint>

namespace magnetar::broker {

class topic;

// Expires what was published before now - `ttl_seconds` on every subscription that has
// not acknowledged it; nothing when `ttl_seconds` <= 0 or no subscription has a backlog.
awaitable<result<void>> expire_messages(topic& t, std::int64_t ttl_seconds);

}  // namespace magnetar::broker
