// Finding the consumer a command names, for the consumer-side handlers.
#pragma once

#include "broker/api/protocol_error.h"
#include "broker/protocol/connection.h"
#include "broker/topic/consumer.h"

#include <fmt/format.h>

#include <memory>

namespace magnetar::broker::handlers {

// The consumer with this id on the connection, or null (closed ones count as gone).
inline std::shared_ptr<consumer> find_consumer(connection& conn, std::uint64_t id) {
  auto c = conn.consumer_of(consumer_id{id});
  return c && !c->closed() ? c : nullptr;
}

// The same for a request: when there is none, the request is answered ConsumerNotFound.
inline std::shared_ptr<consumer> find_consumer_for(connection& conn, std::uint64_t id, std::uint64_t request_id) {
  auto c = find_consumer(conn, id);
  if (!c) {
    conn.send(error_frame(request_id, proto::ConsumerNotFound, fmt::format("no consumer {} on this connection", id)));
  }
  return c;
}

}  // namespace magnetar::broker::handlers
