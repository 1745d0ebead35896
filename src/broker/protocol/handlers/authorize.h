// authorize: the permission check of a command that opens something on a topic
// (PRODUCER, SUBSCRIBE, LOOKUP, PARTITIONED_METADATA), with authorizationEnabled.
// Checked once when the producer, consumer or lookup is made, never per message.
#pragma once

#include "base/result.h"
#include "broker/namespace/access_control.h"
#include "broker/protocol/connection.h"
#include "io/asio.h"
#include "wire/topic_name.h"

#include <string>

namespace magnetar::broker::handlers {

// Success when authorization is off or the connection's role may do `operation`;
// errc::not_authorized with `denied` (upstream's message, which clients show) when it
// may not; the metadata store's error when the permissions could not be read.
// Runs on the connection's shard (it reads the connection's principal).
awaitable<result<void>> authorize(connection& conn, topic_operation operation, const wire::topic_name& topic,
                                  std::string denied, std::string subscription = {});
// GET_TOPICS_OF_NAMESPACE's check: produce or consume granted on the namespace.
awaitable<result<void>> authorize_listing(connection& conn, std::string namespace_name, std::string denied);

}  // namespace magnetar::broker::handlers
